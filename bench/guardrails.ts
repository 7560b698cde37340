/**
 * What the guardrail stage costs a `tools/call` when no interceptor is configured: the stage as
 * src/mcp/methods/tools.ts runs it with the default settings (secrets redacted, personal data
 * not): the bundle's plan, the caller's arguments redacted, the result redacted. Results of 1 KiB
 * and 64 KiB of ordinary tool output (file listings, prose, ids; nothing to redact), in the two
 * forms the pool hands over: with the upstream's JSON text kept (the usual case: one prefix test
 * over the text) and without it (script tools: the string leaves are walked). For scale: a result
 * that does hold a secret, and the stage switched off (no plan).
 * Run: `npm run bench:guardrails`. Results: bench/results/guardrails-<time>.json; summary in BENCHMARKS.md.
 */
import os from 'node:os';
import { withResultText } from '../src/domain/result-text.js';
import type { ToolCallResult } from '../src/domain/upstream-call.js';
import { Guardrails } from '../src/live/guardrails.js';
import { GuardrailStage, type CallNotes } from '../src/mcp/guardrail-stage.js';
import { createLogger } from '../src/logger.js';
import { loadConfig } from '../src/config.js';
import { writeResult } from './harness.js';

const N = Number(process.env.BENCH_QUICK ? 2_000 : 100_000);
const WORDS =
  'the quick brown fox jumps over a lazy dog while reading files from the project index and writing results to the output folder for review later today'.split(
    ' ',
  );

/** Ordinary tool output of about `bytes` characters: a listing of entries with paths, names, sizes and ids. */
function output(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = JSON.stringify({
      id: `0b7c${String(i).padStart(4, '0')}-2f1e-4a8b-9c3d-5e6f7a8b9c0d`,
      path: `/home/dev/projects/app/src/${WORDS[i % WORDS.length]}/${WORDS[(i * 7) % WORDS.length]}.ts`,
      size: (i * 7919) % 65536,
      summary: `${WORDS[(i * 3) % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]} ${WORDS[(i * 11) % WORDS.length]} module, updated 2026-11-${String((i % 28) + 1).padStart(2, '0')}`,
    });
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

function result(bytes: number, withText: boolean, extra = ''): ToolCallResult {
  const r: ToolCallResult = { content: [{ type: 'text', text: output(bytes) + extra }] };
  return withText ? withResultText(r, JSON.stringify(r)) : r;
}

/**
 * Nanoseconds of this thread's CPU per call (user + system time, so a busy shared machine's waits
 * for a core are not counted), the median of five runs of `n` calls.
 */
function nsPer(n: number, fn: () => unknown): number {
  let sink = 0;
  for (let i = 0; i < Math.min(n, 5_000); i++) sink += fn() ? 1 : 0; // warm-up
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) sink += fn() ? 1 : 0;
    const used = process.cpuUsage(start);
    runs.push(((used.user + used.system) * 1000) / n);
  }
  if (sink === -1) console.log(sink);
  return runs.sort((a, b) => a - b)[2]!;
}

const guardrails = new Guardrails();
guardrails.load({ global: { redact_secrets: true, redact_pii: false }, bundles: new Map(), interceptors: [] });
const stage = new GuardrailStage({
  guardrails,
  fetch: () => Promise.reject(new Error('no interceptor is configured')),
  logger: createLogger(loadConfig({ TOOLGATE_LOG_LEVEL: 'silent' })),
});
const bundleId = '00000000-0000-4000-8000-000000000001';
const args = { path: '/home/dev/projects/app/src/index.ts', recursive: true, pattern: 'TODO', limit: 50 };

/** One call's stage, as tools.ts runs it without interceptors. */
function perCall(res: ToolCallResult): () => unknown {
  return () => {
    const notes: CallNotes = { redactions: 0, interceptions: undefined };
    const plan = stage.planFor(bundleId);
    const a = stage.redactArguments(plan, args, notes);
    const r = stage.redactResult(plan, res, notes);
    return a && r;
  };
}

const secret = `\naws_access_key_id = AKIA${'Q7'.repeat(8)}`;
const cases = {
  result_1kib_text: result(1024, true),
  result_64kib_text: result(64 * 1024, true),
  result_1kib_walk: result(1024, false),
  result_64kib_walk: result(64 * 1024, false),
  result_1kib_with_secret: result(1024, true, secret),
};
const ns: Record<string, number> = {};
for (const [name, res] of Object.entries(cases)) ns[name] = nsPer(name.includes('64kib') ? Math.ceil(N / 20) : N, perCall(res));
// The stage off (a deployment with redaction switched off and no interceptor): the plan alone.
const off = new Guardrails();
off.load({ global: { redact_secrets: false, redact_pii: false }, bundles: new Map(), interceptors: [] });
const offStage = new GuardrailStage({
  guardrails: off,
  fetch: () => Promise.reject(new Error('none')),
  logger: createLogger(loadConfig({ TOOLGATE_LOG_LEVEL: 'silent' })),
});
ns.stage_off = nsPer(N, () => {
  const notes: CallNotes = { redactions: 0, interceptions: undefined };
  const plan = offStage.planFor(bundleId);
  return offStage.redactArguments(plan, args, notes) && offStage.redactResult(plan, cases.result_1kib_text, notes);
});

const at = new Date().toISOString();
const file = writeResult('guardrails', at, { node: process.version, cpus: os.cpus().length, load: os.loadavg()[0] ?? 0, at, ns });
const us = (x: number) => (x / 1000).toFixed(3);
console.log(`| guardrail stage per call, no interceptor, secrets on (µs of CPU) | ≤ 5 µs |`);
for (const [name, v] of Object.entries(ns)) console.log(`| ${name} | ${us(v)} |`);
console.log(`load ${(os.loadavg()[0] ?? 0).toFixed(2)}; ${file}`);
