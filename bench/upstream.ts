/**
 * Bench upstream: a small keep-alive Node JSON-RPC server with two tools, `echo` (answers its
 * `text` argument) and `sleep` (waits `ms`), and a pre-serialised `tools/list` of 1,000 tools.
 * Speaks plain JSON-RPC over HTTP POST (no sessions), the way the direct baseline (D) calls it, and
 * enough of MCP Streamable HTTP (initialize, notifications → 202, GET → 405) for Toolgate's pool
 * to register it as a real `streamable_http` server for the gateway run (G).
 * Usage: tsx bench/upstream.ts [port]   → prints {"port": n} on stdout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const toolsList = JSON.stringify({
  tools: [
    { name: 'echo', description: 'Echoes text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    { name: 'sleep', description: 'Waits ms', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } } },
  ].concat(
    Array.from({ length: 1000 }, (_, i) => ({
      name: `tool_${i}`,
      description: `Benchmark tool number ${i}, which does nothing in particular but has a realistic description.`,
      inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } }, required: ['text'] },
    })) as never[],
  ),
});

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let msg: { id?: unknown; method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const reply = (result: string) => {
      const body = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (msg.method === 'initialize') {
      const version = (msg.params as { protocolVersion?: string } | undefined)?.protocolVersion ?? '2025-06-18';
      return reply(
        JSON.stringify({ protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'bench-upstream', version: '1.0.0' } }),
      );
    }
    if (msg.method === 'tools/list') return reply(toolsList);
    if (msg.method !== 'tools/call') return reply('{}');
    const args = msg.params?.arguments ?? {};
    if (msg.params?.name === 'sleep') {
      setTimeout(() => reply(JSON.stringify({ content: [{ type: 'text', text: 'slept' }] })), Number(args.ms ?? 50));
      return;
    }
    reply(JSON.stringify({ content: [{ type: 'text', text: String(args.text ?? '') }] }));
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
