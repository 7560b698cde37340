/**
 * Bench stdio upstream for the peers comparison (bench/peers.ts): a minimal MCP server over stdio
 * (newline-delimited JSON-RPC) with one tool, `echo`, which answers its `text` argument. Plain
 * JavaScript with no loader and no SDK, so its own cost is small and the same behind every proxy.
 * Usage: node bench/stdio-upstream.mjs
 */
import readline from 'node:readline';

const tools = JSON.stringify({
  tools: [{ name: 'echo', description: 'Echoes text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
});

const reply = (id, result) => process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}\n`);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined || typeof msg.method !== 'string') return;
  switch (msg.method) {
    case 'initialize':
      return reply(
        msg.id,
        JSON.stringify({
          protocolVersion: msg.params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'bench-stdio', version: '1.0.0' },
        }),
      );
    case 'tools/list':
      return reply(msg.id, tools);
    case 'tools/call':
      return reply(msg.id, JSON.stringify({ content: [{ type: 'text', text: String(msg.params?.arguments?.text ?? '') }] }));
    default:
      return reply(msg.id, '{}');
  }
});
