import { expect } from 'chai';
import { rootCertificates } from 'node:tls';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { createUser, type TestUser } from '../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';
import {
  MemoryOAuthProvider,
  REDIRECT_URI,
  consentRequestId,
  decide,
  startHttpsFixture,
  type HttpsFixture,
} from '../../helpers/oauth-client.js';

/**
 * The MCP TypeScript SDK's own OAuth client against `/mcp/gateway`: discovery from the 401
 * challenge, registration (DCR, or a client metadata document), PKCE, the person's consent, the
 * token exchange, then tools listed and called with the token; and a refresh.
 */
describe('/mcp/gateway with the MCP SDK OAuth client', () => {
  let t: TestServer;
  let upstreams: TestUpstreams;
  let user: TestUser;
  let url: string;
  let fixture: HttpsFixture;
  let previous: Dispatcher;

  before(async () => {
    upstreams = new TestUpstreams();
    fixture = await startHttpsFixture();
    // The metadata document is served over https by a loopback fixture with its own certificate.
    previous = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: [...rootCertificates, fixture.ca.toString()] } }));
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*,localhost:*' }, start: { upstreams } });
    url = `${t.url}/mcp/gateway`;
    user = await createUser(t, 'admin');
    const gh = putFixtureServer(t.server.services.catalog, 'github', [{ name: 'create_issue', description: 'Open a new issue' }]);
    expect((await t.owner.post('/api/v1/bundles', { name: 'Dev', tools: [{ tool_id: gh.tools.create_issue!.id }] })).status).to.equal(201);
  });
  after(async () => {
    await t?.stop();
    await fixture?.close();
    if (previous) setGlobalDispatcher(previous);
  });

  /** Runs the SDK's flow to the end: consent given through the REST API as `user`. */
  async function authorize(provider: MemoryOAuthProvider): Promise<void> {
    expect(await auth(provider, { serverUrl: url })).to.equal('REDIRECT');
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(authorizationUrl.searchParams.get('resource')).to.equal(url);
    const back = await decide(user.client, await consentRequestId(authorizationUrl));
    expect(`${back.origin}${back.pathname}`).to.equal(provider.redirectUrl);
    expect(back.searchParams.get('state')).to.equal(provider.expectedState);
    expect(back.searchParams.get('iss')).to.equal(t.url);
    expect(await auth(provider, { serverUrl: url, authorizationCode: back.searchParams.get('code')! })).to.equal('AUTHORIZED');
    expect(provider.saved?.token_type).to.match(/^bearer$/i);
    expect(provider.saved?.refresh_token).to.be.a('string');
  }

  async function listAndCall(provider: MemoryOAuthProvider): Promise<void> {
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    const client = new Client({ name: 'oauth-sdk-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).to.deep.equal(['create_issue']);
      const before = upstreams.calls.length;
      const result = await client.callTool({ name: 'create_issue', arguments: { title: 'Bug' } });
      expect(result.isError).to.not.equal(true);
      expect(upstreams.calls.slice(before).map((c) => c.tool)).to.deep.equal(['create_issue']);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  }

  it('registers by DCR, is approved, lists and calls tools, and refreshes', async () => {
    const provider = new MemoryOAuthProvider({ name: 'DCR desktop client' });
    await authorize(provider);
    expect(provider.info?.client_id).to.match(/^tgc_/);
    await listAndCall(provider);
    // Asked again while holding a refresh token, the SDK refreshes: both tokens rotate, the new access token works.
    const first = provider.saved!;
    expect(await auth(provider, { serverUrl: url })).to.equal('AUTHORIZED');
    expect(provider.saved!.access_token).to.not.equal(first.access_token);
    expect(provider.saved!.refresh_token).to.not.equal(first.refresh_token);
    const apps = await user.client.get('/api/v1/users/me/oauth-grants');
    expect(apps.body.items.map((g: any) => g.client_name)).to.include('DCR desktop client');
    await listAndCall(provider);
  });

  it('uses a client metadata document (CIMD) served over https, fetched once and cached', async () => {
    const clientId = `${fixture.url}/oauth/client.json`;
    fixture.documents.set('/oauth/client.json', {
      client_id: clientId,
      client_name: 'CIMD chat connector',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const provider = new MemoryOAuthProvider({ clientMetadataUrl: clientId });
    await authorize(provider);
    expect(provider.info?.client_id).to.equal(clientId);
    await listAndCall(provider);
    expect(fixture.fetches).to.equal(1);
    const shown = await user.client.get('/api/v1/users/me/oauth-grants');
    expect(shown.body.items.find((g: any) => g.client_id === clientId)?.client_name).to.equal('CIMD chat connector');
  });
});
