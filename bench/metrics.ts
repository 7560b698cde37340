/**
 * Micro-benchmark of the metrics instrumentation one MCP `tools/call` pays on the hot path: the
 * HTTP request observation, the MCP request observation and the tool-call observation, over 100
 * servers' label children (cached after first use), and the cost of one scrape at that size.
 * Run: `npm run bench:metrics`. Results: bench/results/metrics.json; summary in BENCHMARKS.md.
 */
import fs from 'node:fs';
import { resultsDir } from './harness.js';
import os from 'node:os';
import path from 'node:path';
import { Metrics } from '../src/lib/metrics.js';

const SERVERS = Array.from({ length: 100 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
const STATUSES = ['ok', 'ok', 'ok', 'ok', 'tool_error', 'error'] as const;

function perCall(metrics: Metrics, n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const server = SERVERS[i % SERVERS.length]!;
    metrics.toolCall(server, STATUSES[i % STATUSES.length]!, 0.0042);
    metrics.mcpRequest('bundle', 'tools/call', true, 0.0051);
    metrics.httpRequest('mcp_bundle', 'POST', 200, 0.0052);
  }
  return Number(process.hrtime.bigint() - start) / n;
}

const metrics = new Metrics();
perCall(metrics, 200_000); // warm-up: every label child exists afterwards
if (global.gc) global.gc();
const heapBefore = process.memoryUsage().heapUsed;
const runs = [1, 2, 3, 4, 5].map(() => perCall(metrics, 1_000_000));
const heapAfter = process.memoryUsage().heapUsed;
const nsPerCall = runs.sort((a, b) => a - b)[2]!;
const scrapeStart = process.hrtime.bigint();
const text = await metrics.render();
const scrapeMs = Number(process.hrtime.bigint() - scrapeStart) / 1e6;
const result = {
  node: process.version,
  cpus: os.cpus().length,
  at: new Date().toISOString(),
  servers: SERVERS.length,
  ns_per_tools_call_median: Math.round(nsPerCall),
  ns_per_tools_call_runs: runs.map((r) => Math.round(r)),
  heap_growth_bytes_over_5M_calls: heapAfter - heapBefore,
  scrape_ms: Math.round(scrapeMs * 100) / 100,
  scrape_bytes: text.length,
};
console.log(JSON.stringify(result, null, 2));
const out = path.join(resultsDir(), 'metrics.json');
fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
