import { expect } from 'chai';
import { mcpFetch, modernRequest, RawSession } from '../../helpers/mcp-http.js';
import { capturedLogs, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';

/** The `mcp request` log lines written since `from` (index into capturedLogs). */
function accessLines(from: number): Record<string, unknown>[] {
  return capturedLogs
    .slice(from)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'mcp request');
}

describe('MCP access log', () => {
  let t: TestServer;
  let bundle: { id: string; bundle_key: string };
  let url: string;
  const ARGUMENT = 'argument-value-7f3c1b';

  before(async () => {
    t = await startTestServer({ start: { upstreams: new TestUpstreams() } });
    const { tools } = putFixtureServer(t.server.services.catalog, 'fixture', [{ name: 'echo' }]);
    const created = await t.owner.post('/api/v1/bundles', {
      name: 'logged',
      tools: [{ tool_id: tools.echo!.id, override: { name: 'say' } }],
    });
    bundle = created.body;
    url = `${t.url}/mcp/bundle/${bundle.bundle_key}`;
  });
  after(() => t.stop());

  it('writes one info line per MCP request: method, bundle, tool, status, duration; never the key or argument values', async () => {
    const from = capturedLogs.length;
    const session = new RawSession(url, '2025-11-25');
    await session.initialize();
    const answer = await session.call('say', { text: ARGUMENT });
    expect(answer.result.structuredContent ?? answer.result.content).to.not.equal(undefined);
    const { headers, body } = modernRequest('tools/call', { name: 'say', arguments: { text: ARGUMENT } });
    await mcpFetch(url, { body, headers });
    await session.request('tools/call', { name: 'nope', arguments: { text: ARGUMENT } });
    await mcpFetch(`${t.url}/mcp/bundle/not-a-key`, { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });

    const lines = accessLines(from);
    const initialize = lines.find((l) => l.method === 'initialize')!;
    expect(initialize).to.include({ level: 30, endpoint: 'bundle', bundle: bundle.id, status: 200 });
    const calls = lines.filter((l) => l.method === 'tools/call');
    expect(calls).to.have.length(3);
    expect(calls[0]).to.include({ endpoint: 'bundle', bundle: bundle.id, tool: 'say', status: 200 });
    expect(calls[0]!.ms).to.be.a('number');
    expect(calls[0]!.requestId).to.be.a('string');
    expect(calls[1]).to.include({ tool: 'say', status: 200 }); // 2026-07-28
    expect(calls[2]).to.include({ tool: 'nope', status: 200, rpc_error: -32602 });
    // An unknown key: logged (status 404) before its body is even read; no bundle to name.
    const unknown = lines.find((l) => l.status === 404)!;
    expect(unknown).to.include({ endpoint: 'bundle' });
    expect(unknown.bundle).to.equal(undefined);

    const text = capturedLogs.slice(from).join('');
    expect(text).not.to.include(bundle.bundle_key);
    expect(text).not.to.include('not-a-key');
    expect(text).not.to.include(ARGUMENT);
  });

  it('names the user on /mcp/gateway, never the API key', async () => {
    const from = capturedLogs.length;
    const { headers, body } = modernRequest('tools/call', { name: 'say', arguments: { text: ARGUMENT } });
    const answer = await mcpFetch(`${t.url}/mcp/gateway`, { body, headers: { ...headers, authorization: `Bearer ${t.ownerKey}` } });
    expect(answer.status).to.equal(200);
    const refused = await mcpFetch(`${t.url}/mcp/gateway`, { body, headers: { ...headers, authorization: 'Bearer tg_usr_live_wrong' } });
    expect(refused.status).to.equal(401);
    const lines = accessLines(from);
    const ownerId = (await t.owner.get('/api/v1/users/me')).body.id;
    expect(lines[0]).to.include({ endpoint: 'gateway', user: ownerId, method: 'tools/call', tool: 'say', status: 200 });
    expect(lines[1]).to.include({ endpoint: 'gateway', status: 401 });
    expect(lines[1]!.user).to.equal(undefined);
    const text = capturedLogs.slice(from).join('');
    expect(text).not.to.include(t.ownerKey);
    expect(text).not.to.include('tg_usr_live_wrong');
    expect(text).not.to.include(ARGUMENT);
  });
});
