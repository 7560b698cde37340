import { expect } from 'chai';
import { setupFixtureBundle, type FixtureBundle } from '../../../helpers/fixture-bundle.js';
import { mcpFetch, modernRequest, responseOf } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

describe('Mcp-Param headers on 2026-07-28 tools/call (SEP-2243)', function () {
  this.timeout(30_000);
  let t: TestServer;
  let fixture: FixtureBundle;
  before(async () => {
    t = await startTestServer();
    fixture = await setupFixtureBundle(t.owner, t.url, { name: 'param-headers', tools: ['region_lookup'] });
  });
  after(() => t?.stop());

  const call = (args: Record<string, unknown>, extra: Record<string, string>) => {
    const { headers, body } = modernRequest('tools/call', { name: 'region_lookup', arguments: args });
    return mcpFetch(fixture.endpoint, { body, headers: { ...headers, ...extra } });
  };

  it('lists the x-mcp-header annotation as the upstream declares it', async () => {
    const { headers, body } = modernRequest('tools/list');
    const tools = responseOf(await mcpFetch(fixture.endpoint, { body, headers })).result.tools;
    expect(tools[0].inputSchema.properties.region).to.deep.equal({ type: 'string', 'x-mcp-header': 'Region' });
  });

  it('serves a call whose header mirrors the argument, literally or Base64-wrapped', async () => {
    const plain = await call({ region: 'eu-west', query: 'a' }, { 'mcp-param-region': 'eu-west' });
    expect(responseOf(plain).result.content[0].text).to.equal('Looked up a in eu-west');
    const wrapped = await call({ region: 'Zürich' }, { 'mcp-param-region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=` });
    expect(responseOf(wrapped).result.content[0].text).to.equal('Looked up everything in Zürich');
  });

  it('answers 400 (-32020) when the header is missing, differs or is badly encoded', async () => {
    for (const [label, extra] of [
      ['missing', {}],
      ['different', { 'mcp-param-region': 'us-east' }],
      ['bad Base64', { 'mcp-param-region': '=?base64?ZXUtd2VzdA?=' }],
    ] as const) {
      const reply = await call({ region: 'eu-west' }, extra);
      expect(reply.status, label).to.equal(400);
      expect(responseOf(reply).error.code, label).to.equal(-32020);
    }
  });
});
