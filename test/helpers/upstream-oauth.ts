/**
 * What the tests of upstream servers behind OAuth share: a bundle that acts for one user, and the
 * fixture's `whoami` tool called through it (answering the subject of the token the upstream saw).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from './identity.js';
import { mcpFetch, modernRequest, responseOf } from './mcp-http.js';
import type { TestServer } from './test-server.js';

/** A bundle created by `user` (so its key acts for `user`) holding every tool of `serverId`; answers its MCP endpoint. */
export async function bundleOf(t: TestServer, user: TestUser, serverId: string): Promise<string> {
  const tools = await t.owner.get(`/api/v1/servers/${serverId}/tools?page_size=100`);
  expect(tools.body.items, 'the server has tools').to.have.length.greaterThan(0);
  const created = await user.client.post('/api/v1/bundles', {
    name: `b-${randomBytes(4).toString('hex')}`,
    tools: tools.body.items.map((tool: { id: string }) => ({ tool_id: tool.id })),
  });
  expect(created.status, created.text).to.equal(201);
  return `${t.url}/mcp/bundle/${created.body.bundle_key}`;
}

/** Calls the fixture's `whoami` tool at a bundle endpoint; the JSON-RPC response. */
export async function whoami(endpoint: string): Promise<any> {
  return responseOf(await mcpFetch(endpoint, modernRequest('tools/call', { name: 'whoami', arguments: {} })));
}
