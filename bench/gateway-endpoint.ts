/**
 * `/mcp/gateway` benchmark (the unified endpoint with search and execute): the real server
 * (`startServer`, embedded PGlite, API key check, rate limit, settings from memory) with 10,000
 * catalog tools from 200 synthetic servers in 10 bundles of 1,000, and a stub upstream (no call
 * reaches one). Measures, over loopback HTTP with one keep-alive undici connection and microsecond
 * timings:
 *
 * - warm `tools/list` on the gateway in direct mode, one user whose view is 1,000 tools (one bundle),
 *   beside the bundle endpoint's `tools/list` of the same bundle (the floor, same run);
 * - `search` through the gateway (search_execute mode, view of all 10,000 tools), end to end, and
 *   the keyword search alone in process (`ToolSearch.search` with the caller's allowed set);
 * - the incremental update after one tool of one server changes at 10,000 tools: the catalog
 *   change's synchronous work (bundle views recompiled, the index fed), per change.
 *
 * Besides wall clock, process CPU time per operation (client and server share the process, so
 * the HTTP figures are an upper bound of the server's own), since on a loaded machine wall clock
 * mostly measures waiting for a core.
 *
 * Results: bench/results/gateway-endpoint.json; summary in BENCHMARKS.md.
 * Usage: npm run bench:gateway   (BENCH_REQUESTS to scale, default 2000)
 */
import fs from 'node:fs';
import { resultsDir } from './harness.js';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import type { CatalogTool } from '../src/domain/catalog.js';
import type { ToolCallResult, UpstreamCaller } from '../src/domain/upstream-call.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { bootstrapOwner } from '../src/services/identity/bootstrap-service.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const SERVERS = 200;
const TOOLS_PER_SERVER = 50;
const BUNDLES = 10;
const WARMUP = 200;
const CHANGES = 50;

const VERBS = ['create', 'delete', 'list', 'get', 'update', 'search', 'merge', 'archive', 'send', 'export'];
const NOUNS = ['issue', 'file', 'message', 'invoice', 'user', 'ticket', 'branch', 'record', 'event', 'report'];
const DOMAINS = ['github', 'jira', 'slack', 'stripe', 'drive', 'calendar', 'crm', 'mail', 'db', 'wiki'];

/** Upstream seam stub: the benchmark never calls a tool. */
const stub: UpstreamCaller = {
  callTool: async (): Promise<ToolCallResult> => ({ content: [{ type: 'text', text: 'ok' }] }),
  readResource: async () => ({ contents: [] }),
  getPrompt: async () => ({ messages: [] }),
} as unknown as UpstreamCaller;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function summary(samples: number[]): { p50_ms: number; p99_ms: number; mean_ms: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    p50_ms: round(quantile(sorted, 0.5)),
    p99_ms: round(quantile(sorted, 0.99)),
    mean_ms: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
    n: sorted.length,
  };
}

function catalogTool(serverId: string, serverName: string, i: number, s: number): CatalogTool {
  const verb = VERBS[i % VERBS.length]!;
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]!;
  const domain = DOMAINS[s % DOMAINS.length]!;
  return {
    id: randomUUID(),
    serverId,
    serverName,
    name: `${domain}${s}_${verb}_${noun}`,
    title: null,
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} in ${domain} (${serverName}); returns the ${noun} as JSON.`,
    inputSchema: {
      type: 'object',
      properties: { [`${noun}_id`]: { type: 'string', description: `The ${noun} identifier` }, note: { type: 'string' } },
    },
    outputSchema: null,
    annotations: null,
    meta: null,
    enabled: true,
    available: true,
  };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-gw-'));
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  TOOLGATE_DATA_DIR: dataDir,
  TOOLGATE_LOG_LEVEL: 'warn',
  TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '1000000',
});
const server = await startServer(config, { logger: createLogger(config, fs.createWriteStream('/dev/null')), upstreams: stub });
const s = server.services;
const { key: ownerKey, userId: ownerId } = await bootstrapOwner(s, { email: 'bench@example.com' });
const post = async (pathname: string, body: unknown, key = ownerKey, method = 'POST') => {
  const res = await fetch(`${server.url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${pathname}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

// 200 servers × 50 tools; bundle b holds servers 20b..20b+19 (1,000 tools).
const servers: { id: string; name: string; tools: CatalogTool[] }[] = [];
for (let i = 0; i < SERVERS; i++) {
  const id = randomUUID();
  const name = `${DOMAINS[i % DOMAINS.length]}-${i}`;
  const tools = Array.from({ length: TOOLS_PER_SERVER }, (_, k) => catalogTool(id, name, k, i));
  servers.push({ id, name, tools });
  s.catalog.putServer(id, { name, enabled: true, connected: true, tools, resources: [], resourceTemplates: [], prompts: [] });
}
const perBundle = SERVERS / BUNDLES;
const bundles: { id: string; bundle_key: string }[] = [];
for (let b = 0; b < BUNDLES; b++) {
  const tools = servers.slice(b * perBundle, (b + 1) * perBundle).flatMap((x) => x.tools.map((t) => ({ tool_id: t.id })));
  bundles.push(await post('/api/v1/bundles', { name: `Bundle ${b}`, tools }));
}
const listUser = await post('/api/v1/users/me/api-keys', { name: 'list' });
const searchUser = await post('/api/v1/users/me/api-keys', { name: 'search' });
// Both keys are the owner's: one user, so settings are per user; the search run switches the mode.

/**
 * Server-side time of each request: from the request event (headers parsed; listener prepended so
 * it runs before the app) to the response's `finish` (the last byte handed to the socket), by path.
 */
const serverSide = new Map<string, number[]>();
server.httpServer.prependListener('request', (req, res) => {
  const started = performance.now();
  res.once('finish', () => {
    const key = (req.url ?? '').startsWith('/mcp/bundle/') ? '/mcp/bundle' : (req.url ?? '');
    let list = serverSide.get(key);
    if (!list) serverSide.set(key, (list = []));
    list.push(performance.now() - started);
  });
});
/** Server-side samples of `key` recorded while `fn` runs (warm-up excluded by the caller). */
async function serverSamples<T>(key: string, fn: () => Promise<T>): Promise<{ result: T; samples: number[] }> {
  serverSide.set(key, []);
  const result = await fn();
  return { result, samples: serverSide.get(key)!.slice(WARMUP) };
}

const pool = new Pool(server.url, { connections: 1, pipelining: 1 });
const accept = 'application/json, text/event-stream';
async function rpc(pathname: string, key: string | null, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const res = await pool.request({
    path: pathname,
    method: 'POST',
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      'content-type': 'application/json',
      accept,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  const elapsed = performance.now() - started;
  if (res.statusCode !== 200 || !text.includes('"result"')) throw new Error(`${pathname}: ${res.statusCode} ${text.slice(0, 200)}`);
  return elapsed;
}
const modern = (method: string, params: Record<string, unknown> = {}) => ({
  body: {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  },
  headers: {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
  },
});
/** Process CPU time (user + system) per operation in µs: on a loaded box wall clock mostly measures waiting for a core. */
const cpuPerOp: Record<string, number> = {};
async function timeMany(label: string, n: number, fn: () => Promise<number>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const out: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) out.push(await fn());
  const used = process.cpuUsage(cpu);
  cpuPerOp[label] = Math.round((used.user + used.system) / n);
  return out;
}

// 1. Warm tools/list, 1,000 tools: gateway (direct, one bundle selected) and the bundle endpoint.
await post('/api/v1/users/me/gateway-settings', { mode: 'direct', bundle_ids: [bundles[0]!.id] }, ownerKey, 'PUT');
const list = modern('tools/list');
const gatewayListed: any = await (
  await fetch(`${server.url}/mcp/gateway`, {
    method: 'POST',
    headers: { authorization: `Bearer ${listUser.key}`, 'content-type': 'application/json', accept, ...list.headers },
    body: JSON.stringify(list.body),
  })
).json();
if (gatewayListed.result.tools.length !== 1000) throw new Error(`gateway lists ${gatewayListed.result.tools.length} tools, not 1,000`);
const { result: bundleList, samples: bundleListServer } = await serverSamples('/mcp/bundle', () =>
  timeMany('list_1000_bundle_endpoint', REQUESTS, () => rpc(`/mcp/bundle/${bundles[0]!.bundle_key}`, null, list.body, list.headers)),
);
const { result: gatewayList, samples: gatewayListServer } = await serverSamples('/mcp/gateway', () =>
  timeMany('list_1000_gateway_direct', REQUESTS, () => rpc('/mcp/gateway', listUser.key, list.body, list.headers)),
);
const listBodyBytes = Buffer.byteLength(JSON.stringify(gatewayListed));

// 2. search over 10,000 tools (search_execute, every bundle), end to end and in process.
await post('/api/v1/users/me/gateway-settings', { mode: 'search_execute', bundle_ids: [], search_result_limit: 10 }, ownerKey, 'PUT');
const queries = VERBS.flatMap((v) => NOUNS.map((n) => `${v} a ${n} in ${DOMAINS[(v.length + n.length) % DOMAINS.length]}`));
let q = 0;
const gatewaySearch = await timeMany('search_10000_gateway_end_to_end', REQUESTS, () => {
  const call = modern('tools/call', { name: 'search', arguments: { query: queries[q++ % queries.length] } });
  return rpc('/mcp/gateway', searchUser.key, call.body, call.headers);
});
const view = server.mcp.gateway.viewFor({ userId: ownerId, role: 'owner' }, await s.gatewaySettings.get(ownerId));
const allowed = view.reachable.documentIds;
if (allowed.size !== SERVERS * TOOLS_PER_SERVER) throw new Error(`search view reaches ${allowed.size} tools`);
let k = 0;
const keywordOnly = await timeMany('search_10000_keyword_in_process', REQUESTS, async () => {
  const started = performance.now();
  await server.mcp.search.search({ query: queries[k++ % queries.length]!, allowed, limit: 10 });
  return performance.now() - started;
});

// 3. One tool of one server changes (its description), at 10,000 tools: the synchronous catalog
// change (bundle views recompiled on demand, the index fed) per change.
const updates: number[] = [];
const updateCpu = process.cpuUsage();
for (let i = 0; i < CHANGES; i++) {
  const target = servers[(i * 7) % SERVERS]!;
  const tools = target.tools.map((t, k) => (k === 0 ? { ...t, description: `${t.description} (revision ${i})` } : t));
  const started = performance.now();
  s.catalog.putServer(target.id, {
    name: target.name,
    enabled: true,
    connected: true,
    tools,
    resources: [],
    resourceTemplates: [],
    prompts: [],
  });
  updates.push(performance.now() - started);
}
const updateUsed = process.cpuUsage(updateCpu);
cpuPerOp.one_tool_change_10000 = Math.round((updateUsed.user + updateUsed.system) / CHANGES);
const changedFound = await server.mcp.search.search({ query: `revision ${CHANGES - 1}`, allowed, limit: 1 });

await pool.close();
await server.stop();
fs.rmSync(dataDir, { recursive: true, force: true });

const results = {
  at: new Date().toISOString(),
  node: process.version,
  requests: REQUESTS,
  tools: SERVERS * TOOLS_PER_SERVER,
  list_1000: {
    body_bytes: listBodyBytes,
    bundle_endpoint: summary(bundleList),
    gateway_direct: summary(gatewayList),
    server_side_bundle_endpoint: summary(bundleListServer),
    server_side_gateway_direct: summary(gatewayListServer),
  },
  search_10000: { gateway_end_to_end: summary(gatewaySearch), keyword_in_process: summary(keywordOnly) },
  one_tool_change_10000: { ...summary(updates), changed_tool_found: changedFound.hits.length === 1 },
  cpu_us_per_op: cpuPerOp,
  load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
};
fs.mkdirSync(path.join(HERE, 'results'), { recursive: true });
fs.writeFileSync(path.join(resultsDir(), 'gateway-endpoint.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results, null, 2));
