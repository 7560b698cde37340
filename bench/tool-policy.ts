/**
 * What the tool policy costs a call. The policy's one decision function (src/live/tool-policy.ts)
 * at 100 rules: a listing decision (how a view is compiled), a call that walks every rule and
 * matches none (the worst case for an unconditional policy), and a call decided by CEL conditions
 * on the way (the guard of a conditionally listed tool evaluates them with the call's arguments).
 * And the fast path: with no rule, what the bundle route pays to find its view (`served`, which
 * is then the unpoliced view itself) against the view lookup alone.
 * Run: `npm run bench:policy`. Results: bench/results/tool-policy.json; summary in BENCHMARKS.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PolicyRule } from '../src/domain/tool-policy.js';
import type { LiveBundle } from '../src/live/bundles-registry.js';
import { InMemoryCatalog } from '../src/live/in-memory-catalog.js';
import { ToolPolicy } from '../src/live/tool-policy.js';
import { BundleViews } from '../src/mcp/bundle-view.js';

const RULES = 100;
const N = Number(process.env.BENCH_QUICK ? 20_000 : 500_000);
const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** 100 rules of every kind: per server, per tool name and glob, per bundle, per team and user; one in ten with a CEL condition (those for everyone: servers, bundles and subjects below only narrow the others). */
function rules(): PolicyRule[] {
  return Array.from({ length: RULES }, (_, i) => ({
    id: uuid(i),
    name: `rule ${i}`,
    effect: i % 3 === 0 ? 'allow' : 'deny',
    priority: i,
    enabled: true,
    servers: i % 4 === 0 && i % 10 !== 9 ? [uuid(1000 + i), uuid(2000 + i)] : [],
    tools: i % 10 === 9 ? ['guarded_*'] : i % 2 === 0 ? [`tool_${i}`, `other_${i}`] : [`prefix_${i}_*`],
    bundles: i % 5 === 0 && i % 10 !== 9 ? [uuid(3000 + i)] : [],
    teams: i % 3 === 0 && i % 10 !== 9 ? [uuid(4000 + i)] : [],
    users: i % 7 === 0 && i % 10 !== 9 ? [uuid(5000 + i)] : [],
    condition: i % 10 === 9 ? `has(args.path) && args.path.startsWith("/secret/${i}")` : null,
  }));
}

function nsPer(n: number, fn: (i: number) => unknown): number {
  let sink = 0;
  for (let i = 0; i < Math.min(n, 50_000); i++) sink += fn(i) ? 1 : 0; // warm-up
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += fn(i) ? 1 : 0;
    runs.push(Number(process.hrtime.bigint() - start) / n);
  }
  if (sink === -1) console.log(sink);
  return runs.sort((a, b) => a - b)[2]!;
}

const policy = new ToolPolicy();
policy.load(rules());
const subject = { userId: uuid(9999), teamIds: new Set([uuid(8888), uuid(8889)]) };
// A target no rule matches: every rule is looked at (sets, the glob regex), none applies.
const miss = { serverId: uuid(7777), toolName: 'unrelated_tool', bundleId: uuid(6666) };
// A target all ten conditional rules match (`guarded_*`) whose conditions are all false: ten CEL evaluations, then no rule applies.
const conditioned = { serverId: uuid(7777), toolName: 'guarded_read', bundleId: uuid(6666) };
const args = { path: '/home/user/file.txt', mode: 'r' };

const listing = nsPer(N, () => policy.decide(subject, miss).allowed);
const callMiss = nsPer(N, () => policy.decide(subject, miss, args).allowed);
const callWithCel = nsPer(N, () => policy.decide(subject, conditioned, args).allowed);
const gate = policy.gateFor(subject)!;
const guard = nsPer(N, () => gate.call(conditioned, args).allowed);

// The fast path: no rule at all.
const catalog = new InMemoryCatalog();
const bundle: LiveBundle = { id: uuid(1), name: 'b', description: null, keyHash: 'k', createdBy: null, shares: [], version: 1, tools: [] };
const empty = new ToolPolicy();
empty.load([]);
const plain = new BundleViews(catalog, 100, { name: 't', version: '1' });
const policed = new BundleViews(catalog, 100, { name: 't', version: '1' }, empty);
const viewLookup = nsPer(N * 4, () => plain.of(bundle));
const servedNoPolicy = nsPer(N * 4, () => policed.served(bundle));

const result = {
  node: process.version,
  cpus: os.cpus().length,
  load: os.loadavg()[0] ?? 0,
  at: new Date().toISOString(),
  rules: RULES,
  ns: {
    listing_decision_no_match: listing,
    call_decision_no_match: callMiss,
    call_decision_through_conditions: callWithCel,
    guard_of_listed_tool: guard,
    no_policy_view_lookup: viewLookup,
    no_policy_served_view: servedNoPolicy,
  },
};
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'tool-policy.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
const us = (ns: number) => (ns / 1000).toFixed(3);
console.log(
  `| decision at ${RULES} rules (µs): listing ${us(listing)}, call (no rule matches) ${us(callMiss)}, call through 10 CEL conditions ${us(callWithCel)}, guard ${us(guard)} | ≤ 10 µs |`,
);
console.log(`| no policy: served view ${us(servedNoPolicy)} µs vs view lookup ${us(viewLookup)} µs | no measurable change |`);
console.log(`load ${result.load.toFixed(2)}; ${out}`);
