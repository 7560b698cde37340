/**
 * Where the embedded default's memory goes under load, mapping by mapping: starts the gateway
 * (production path, PGlite unless BENCH_DATABASE_URL is set), runs a 32-client `tools/call` echo
 * load for MAP_RUN_S seconds (default 20) and samples /proc/<pid>/smaps every 250 ms, grouping
 * the resident memory into: WebAssembly memories (PGlite's PostgreSQL heap: anonymous mappings
 * reserved at ≥ 1 GiB), executable anonymous memory (JIT code: V8's and the WebAssembly
 * compiler's), other anonymous memory (V8 heaps of both threads, glibc's arenas, buffers), and
 * file-backed pages. Prints idle, the sample where RSS peaked, and after the load, so a peak can
 * be put down to a group. A diagnostic, not a target: the target is bench/memory.ts.
 * Usage: npx tsx bench/memory-map.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ask, echoBundleTarget, startProcess } from './harness.js';
import { closedLoop } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RUN_MS = Number(process.env.MAP_RUN_S ?? 20) * 1000;
const KiB = 1024;
const MiB = 1024 * KiB;

interface Groups {
  rss: number;
  wasm: number;
  code: number;
  anon: number;
  file: number;
  top?: string[];
}

/** Resident MiB of the process by group, from /proc/<pid>/smaps. */
function sample(pid: number): Groups {
  const text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const g: Groups = { rss: 0, wasm: 0, code: 0, anon: 0, file: 0 };
  let kind: 'wasm' | 'code' | 'anon' | 'file' = 'anon';
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const size = parseInt(head[2]!, 16) - parseInt(head[1]!, 16);
      const perms = head[3]!;
      const file = head[5]!.trim();
      const inode = head[4]!;
      if (inode !== '0' && file.startsWith('/')) kind = 'file';
      else if (perms.includes('x')) kind = 'code';
      else if (size >= 1024 * MiB) kind = 'wasm';
      else kind = 'anon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const mib = (Number(rss[1]) * KiB) / MiB;
      g[kind] += mib;
      g.rss += mib;
    }
  }
  for (const k of ['rss', 'wasm', 'code', 'anon', 'file'] as const) g[k] = Math.round(g[k] * 10) / 10;
  if (process.env.MAP_TOP) {
    const maps: { head: string; rss: number }[] = [];
    let head = '';
    for (const line of text.split('\n')) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) head = line;
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss) maps.push({ head, rss: Number(rss[1]) / 1024 });
    }
    maps.sort((a, b) => b.rss - a.rss);
    g.top = maps.slice(0, Number(process.env.MAP_TOP)).map((m) => {
      const [a, b] = m.head
        .split(' ')[0]!
        .split('-')
        .map((x) => parseInt(x, 16));
      return `${m.rss.toFixed(1)} MiB of ${((b! - a!) / MiB).toFixed(1)} ${m.head.split(/\s+/).slice(1, 2).join(' ')} ${m.head.split(/\s+/).slice(5).join(' ')}`;
    });
  }
  return g;
}

const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
const gateway = await startProcess([...benchNodeFlags(), gatewayEntry(), String(upstream.info.port)], 0, { ipc: true });
try {
  const pid = gateway.child.pid!;
  const target = await echoBundleTarget(gateway.info, 32, 'memory-map');
  await new Promise((r) => setTimeout(r, 2000));
  const idle = sample(pid);
  let peak = idle;
  // The main thread's V8 heap at each sample, garbage included (no GC before reading it).
  let heapAtPeak: unknown;
  const heaps: number[] = [];
  const timer = setInterval(() => {
    const s = sample(pid);
    void ask<{ memory: NodeJS.MemoryUsage; spaces: Record<string, number> }>(gateway.child, { cmd: 'memory', gc: false }).then((m) => {
      heaps.push(Math.round(m.memory.heapTotal / MiB));
      if (s.rss > peak.rss) {
        peak = s;
        heapAtPeak = { heap_total_mib: Math.round(m.memory.heapTotal / MiB), spaces: m.spaces };
      }
    });
  }, 250);
  const load = await closedLoop(target, 32, RUN_MS);
  clearInterval(timer);
  const after = sample(pid);
  console.log(JSON.stringify({ idle, peak, heapAtPeak, heapMax: Math.max(...heaps), after, rps: load.rps, errors: load.errors }, null, 1));
} finally {
  gateway.child.kill('SIGTERM');
  upstream.child.kill('SIGTERM');
}
