import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mcpFetch, modernRequest, RawSession } from '../../helpers/mcp-http.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { register, waitConnected } from '../../helpers/upstreams.js';

/**
 * A `tools/call` result written the way no serialiser would write it: spaces around colons,
 * a `\u00e9` escape, numbers `1.50` and `2e3`, an unknown member, key order of its own. Passed
 * through, it reaches the caller byte for byte; re-serialised, every one of those would change.
 */
const RESULT =
  '{ "isError" : false,"content":[ {"type":"text","text":"caf\\u00e9 \\"quoted\\" \u2603"} ],"zeta":{"b":1,"a":[1.50,2e3]} , "_meta":{"x":null} }';
/** What a renamed tool's error says (its upstream name must not reach the caller). */
const ERROR_RESULT = '{"content":[{"type":"text","text":"upstream_only failed: 1.50"}],"isError":true}';

const TOOLS = [
  { name: 'verbatim', inputSchema: { type: 'object' } },
  { name: 'upstream_only', inputSchema: { type: 'object' } },
];

/** The upstream's answer to one JSON-RPC message, as text (undefined: a notification). */
function answer(msg: { id?: unknown; method?: string; params?: { name?: string } }): string | undefined {
  if (msg.id === undefined) return undefined;
  const id = JSON.stringify(msg.id);
  switch (msg.method) {
    case 'initialize':
      return `{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"verbatim","version":"1"}}}`;
    case 'tools/list':
      return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify({ tools: TOOLS })}}`;
    case 'tools/call':
      // The result first, the id last: where `result` sits is found by scanning, not assumed.
      return `{"result":${msg.params?.name === 'upstream_only' ? ERROR_RESULT : RESULT},"jsonrpc":"2.0","id":${id}}`;
    default:
      return `{"jsonrpc":"2.0","id":${id},"result":{}}`;
  }
}

/** The same upstream over stdio (newline-delimited JSON), as a script file. */
const STDIO_SCRIPT = `
import readline from 'node:readline';
const answer = ${answer.toString()};
const RESULT = ${JSON.stringify(RESULT)};
const ERROR_RESULT = ${JSON.stringify(ERROR_RESULT)};
const TOOLS = ${JSON.stringify(TOOLS)};
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const text = answer(JSON.parse(line));
  if (text !== undefined) process.stdout.write(text + '\\n');
});
`;

describe('upstream results are passed through as the upstream wrote them (never parsed nor re-serialised)', function () {
  this.timeout(60000);
  let t: TestServer;
  let upstream: http.Server;
  let dir: string;
  const keys: Record<'http' | 'stdio', string> = { http: '', stdio: '' };

  before(async () => {
    upstream = http.createServer((req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = answer(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        if (text === undefined) res.writeHead(202).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-verbatim-'));
    fs.writeFileSync(path.join(dir, 'upstream.mjs'), STDIO_SCRIPT);
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    const servers = {
      http: await register(t.owner, {
        name: 'verbatim-http',
        transport: 'streamable_http',
        url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`,
      }),
      stdio: await register(t.owner, {
        name: 'verbatim-stdio',
        transport: 'stdio',
        command: process.execPath,
        args: ['upstream.mjs'],
        cwd: dir,
      }),
    };
    for (const kind of ['http', 'stdio'] as const) {
      await waitConnected(t.owner, servers[kind].id, 2);
      const tools = (await t.owner.get(`/api/v1/servers/${servers[kind].id}/tools`)).body.items as { id: string; name: string }[];
      const bundle = await t.owner.post('/api/v1/bundles', {
        name: `verbatim ${kind}`,
        tools: tools.map((x) => (x.name === 'upstream_only' ? { tool_id: x.id, override: { name: 'renamed' } } : { tool_id: x.id })),
      });
      expect(bundle.status, JSON.stringify(bundle.body)).to.equal(201);
      keys[kind] = bundle.body.bundle_key as string;
    }
  });
  after(async () => {
    await t?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const kind of ['http', 'stdio'] as const) {
    describe(`from a ${kind === 'http' ? 'Streamable HTTP' : 'stdio'} upstream`, () => {
      it('a legacy session gets the result byte for byte in its answer', async () => {
        const s = new RawSession(`${t.url}/mcp/bundle/${keys[kind]}`, '2025-11-25');
        await s.initialize();
        const reply = await s.request('tools/call', { name: 'verbatim', arguments: {} }, { id: 41 });
        expect(reply.status).to.equal(200);
        expect(reply.text).to.equal(`{"jsonrpc":"2.0","id":41,"result":${RESULT}}`);
      });

      it('2026-07-28 gets the same text with resultType added in front', async () => {
        const { headers, body } = modernRequest('tools/call', { name: 'verbatim', arguments: {} }, 42);
        const reply = await mcpFetch(`${t.url}/mcp/bundle/${keys[kind]}`, { body, headers });
        expect(reply.status).to.equal(200);
        expect(reply.text).to.equal(`{"jsonrpc":"2.0","id":42,"result":{"resultType":"complete",${RESULT.slice(1)}}`);
        expect(reply.json.result.zeta).to.deep.equal({ b: 1, a: [1.5, 2000] });
      });

      it('a result the gateway changes (a renamed tool naming itself in an error) is serialised anew', async () => {
        const s = new RawSession(`${t.url}/mcp/bundle/${keys[kind]}`, '2025-11-25');
        await s.initialize();
        const reply = await s.request('tools/call', { name: 'renamed', arguments: {} }, { id: 43 });
        expect(reply.json.result).to.deep.equal({ content: [{ type: 'text', text: 'renamed failed: 1.50' }], isError: true });
        expect(reply.text).to.not.include('upstream_only');
      });
    });
  }
});
