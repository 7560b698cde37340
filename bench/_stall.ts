import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_JSON, openSessions, pin, startProcess } from './harness.js';
import { fixedRate, type Target } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';
const HERE = path.dirname(fileURLToPath(import.meta.url));
pin(process.pid, 1);
const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
const extra = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
const gw = await startProcess([...benchNodeFlags(), ...extra, '--trace-gc', gatewayEntry(), String(upstream.info.port)], 0, {
  ipc: true,
  env: { BENCH_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' },
});
const gc: string[] = [];
gw.child.stdout!.setEncoding('utf8');
gw.child.stdout!.on('data', (d: string) => gc.push(...d.split('\n').filter((l) => l.includes('ms: '))));
const origin = `http://127.0.0.1:${gw.info.port}`;
const p = `/mcp/bundle/${gw.info.echoKey}`;
const sessions = await openSessions(origin + p, 32, 'stall');
const text1k = 'x'.repeat(1024);
const target: Target = {
  origin, path: p,
  headers: (c) => ({ ...MCP_JSON, 'mcp-session-id': sessions[c % 32]!, 'mcp-protocol-version': '2025-11-25' }),
  body: (seq) => JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'echo', arguments: { text: text1k } } }),
};
await fixedRate(target, 1000, 3000);
gc.length = 0;
const r = await fixedRate(target, Number(process.env.RATE ?? 1000), 10000);
console.log(JSON.stringify(r));
const pauses = gc.map((l) => ({ l, ms: Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(l)?.[1] ?? 0) })).filter((x) => x.ms >= 5);
console.log('gc lines', gc.length, 'pauses >= 5 ms:', pauses.length);
for (const x of pauses.slice(0, 15)) console.log(x.l.trim().slice(0, 160));
gw.child.kill('SIGTERM'); upstream.child.kill('SIGTERM');
process.exit(0);
