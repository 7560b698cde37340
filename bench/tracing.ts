/**
 * The cost of tracing, three builds side by side in one run: BEFORE (the gateway without the
 * tracing code, a build of another commit), OFF (this build, no OTEL_* variables) and ON (this
 * build, OTLP http/protobuf export to a loopback collector stand-in that answers 200, 100 %
 * sampling). Each pinned to core 0 and idle while another is measured; the bench upstream and
 * this load client on core 1; trials rotate the order. Closed-loop `tools/call` echo (1 KiB);
 * CPU per request from /proc. Writes bench/results/tracing-<time>.json.
 * BEFORE is a bench build of the commit before tracing, e.g.:
 *   git archive <commit> | tar -x -C /tmp/before && ln -s $PWD/node_modules /tmp/before/node_modules
 *   (cd /tmp/before && node scripts/build-server.mjs --bench)
 * Usage: tsx bench/tracing.ts <before-dist-dir> [clients=32] [trials=6] [ms=3000]
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, echoBundleTarget, median, pin, startProcess } from './harness.js';
import { closedLoop } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BEFORE = process.argv[2];
if (!BEFORE) throw new Error('usage: tsx bench/tracing.ts <before-dist-dir> [clients] [trials] [ms]');
const CLIENTS = Number(process.argv[3] ?? 32);
const TRIALS = Number(process.argv[4] ?? 6);
const RUN_MS = Number(process.argv[5] ?? 3000);

pin(process.pid, 1);
// The collector stand-in: takes every export (its CPU is on core 1, not the gateway's).
let spansBytes = 0;
const collector = http.createServer((req, res) => {
  req.on('data', (c: Buffer) => (spansBytes += c.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
const otlp = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
const port = String(upstream.info.port);
const noOtel = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('OTEL_'))
    .map((k) => [k, undefined]),
);
const sides = ['BEFORE', 'OFF', 'ON'] as const;
type Side = (typeof sides)[number];
const gateways = {
  BEFORE: await startProcess([...benchNodeFlags(), path.resolve(BEFORE, 'bench', 'gateway.js'), port], 0, { ipc: true, env: noOtel }),
  OFF: await startProcess([...benchNodeFlags(), gatewayEntry(), port], 0, { ipc: true, env: noOtel }),
  ON: await startProcess([...benchNodeFlags(), gatewayEntry(), port], 0, {
    ipc: true,
    env: {
      ...noOtel,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'always_on',
    },
  }),
};
const targets = {} as Record<Side, Awaited<ReturnType<typeof echoBundleTarget>>>;
for (const s of sides) targets[s] = await echoBundleTarget(gateways[s].info, CLIENTS, 'trace');
for (const s of sides) await closedLoop(targets[s], CLIENTS, 2000);
const trials: Record<Side, { cpu_us: number; rps: number; p50_ms: number; errors: number }[]> = { BEFORE: [], OFF: [], ON: [] };
for (let t = 0; t < TRIALS; t++) {
  const order = [...sides.slice(t % 3), ...sides.slice(0, t % 3)];
  for (const s of order) {
    const pid = gateways[s].child.pid!;
    const cpu0 = cpuSeconds(pid);
    const r = await closedLoop(targets[s], CLIENTS, RUN_MS);
    const cpu = cpuSeconds(pid) - cpu0;
    trials[s].push({ cpu_us: (cpu * 1e6) / r.requests, rps: r.rps, p50_ms: r.p50_ms, errors: r.errors });
  }
}
const summary = Object.fromEntries(
  sides.map((s) => [
    s,
    {
      cpu_us: Math.round(median(trials[s].map((x) => x.cpu_us)) * 10) / 10,
      rps: Math.round(median(trials[s].map((x) => x.rps))),
      p50_ms: median(trials[s].map((x) => x.p50_ms)),
      errors: trials[s].reduce((n, x) => n + x.errors, 0),
    },
  ]),
) as Record<Side, { cpu_us: number; rps: number; p50_ms: number; errors: number }>;
const result = {
  bench: 'tracing',
  at: new Date().toISOString(),
  clients: CLIENTS,
  trials: TRIALS,
  run_ms: RUN_MS,
  loadavg: os.loadavg(),
  summary,
  off_vs_before_cpu: Math.round((summary.OFF.cpu_us / summary.BEFORE.cpu_us) * 1000) / 1000,
  on_cost_cpu_us_per_call: Math.round((summary.ON.cpu_us - summary.OFF.cpu_us) * 10) / 10,
  exported_bytes: spansBytes,
  raw: trials,
};
fs.mkdirSync(path.join(HERE, 'results'), { recursive: true });
const file = path.join(HERE, 'results', `tracing-${result.at.replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify(result, null, 2));
console.log(JSON.stringify({ ...result, raw: undefined }, null, 2));
for (const s of sides) gateways[s].child.kill('SIGTERM');
upstream.child.kill('SIGTERM');
collector.close();
