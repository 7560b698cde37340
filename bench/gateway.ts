/**
 * Bench gateway process (G): Toolgate with its production stack (credential check by key hash,
 * bundle policy, call records, embedded PGlite), debug logging off. Fills the catalog with the
 * bench upstream's tools and 1,000 tools from 50 servers, creates the bundles through the REST
 * API, prints {"port", "echoKey", "listKey"} and answers `{cmd: "heap"}` over IPC with the heap
 * after a full GC (for the session memory scenario). Run with --expose-gc.
 * Usage: node --expose-gc --import tsx bench/gateway.ts <upstream-port>
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { bootstrapOwner } from '../src/services/bootstrap-service.js';
import type { CatalogTool } from '../src/services/catalog-types.js';
import { BenchHttpUpstreamCaller } from './http-upstream-caller.js';

const upstreamPort = Number(process.argv[2]);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', TOOLGATE_DATA_DIR: dataDir, TOOLGATE_LOG_LEVEL: 'info' });
const upstreams = new BenchHttpUpstreamCaller(upstreamPort);
const server = await startServer(config, { logger: createLogger(config, fs.createWriteStream('/dev/null')), upstreams });
const s = server.services;
const { key: ownerKey } = await bootstrapOwner(
  { knex: s.db.knex, users: s.users, apiKeys: s.apiKeysStore, apiKeysService: s.apiKeys },
  { email: 'bench@example.com' },
);

function tool(serverId: string, serverName: string, name: string): CatalogTool {
  return {
    id: randomUUID(),
    serverId,
    serverName,
    name,
    title: null,
    description: `Benchmark tool ${name} of ${serverName}, which does nothing in particular but has a realistic description.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } }, required: ['text'] },
    outputSchema: null,
    annotations: null,
    meta: null,
    enabled: true,
    available: true,
  };
}
const empty = { resources: [], resourceTemplates: [], prompts: [] };
const benchId = randomUUID();
const benchTools = [tool(benchId, 'bench', 'echo'), tool(benchId, 'bench', 'sleep')];
s.catalog.putServer(benchId, { name: 'bench', enabled: true, connected: true, tools: benchTools, ...empty });
const listTools: CatalogTool[] = [];
for (let i = 0; i < 50; i++) {
  const id = randomUUID();
  const tools = Array.from({ length: 20 }, (_, j) => tool(id, `server_${i}`, `tool_${i}_${j}`));
  s.catalog.putServer(id, { name: `server_${i}`, enabled: true, connected: true, tools, ...empty });
  listTools.push(...tools);
}

async function createBundle(name: string, tools: CatalogTool[]): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/bundles`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, tools: tools.map((t) => ({ tool_id: t.id })) }),
  });
  if (res.status !== 201) throw new Error(`bundle creation failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { bundle_key: string }).bundle_key;
}
const echoKey = await createBundle('bench echo', benchTools);
const listKey = await createBundle('bench 1000 tools', listTools);

process.on('message', (msg: { cmd?: string }) => {
  if (msg.cmd === 'heap') {
    (globalThis as { gc?: () => void }).gc?.();
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ heap: process.memoryUsage().heapUsed });
  }
});
process.on('SIGTERM', async () => {
  await server.stop();
  await upstreams.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ port: server.port, echoKey, listKey })}\n`);
