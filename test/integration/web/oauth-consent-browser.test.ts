import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { rootCertificates } from 'node:tls';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt } from '../../helpers/console-build.js';
import { ROOT } from '../../helpers/contract.js';
import { createUser, type TestUser } from '../../helpers/identity.js';
import { MemoryOAuthProvider, startHttpsFixture, type HttpsFixture } from '../../helpers/oauth-client.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');

/**
 * An MCP client connecting by OAuth with the consent given in the console, in headless Chromium:
 * the MCP SDK's `auth()` registers (DCR, or a client metadata document served by a loopback https
 * fixture), the browser opens the authorization URL, the person signs in with their API key, sees
 * the client, the redirect host and the bundles it reaches, and approves; the loopback redirect
 * receives the code and `iss`, the SDK redeems it, lists and calls tools. Then the person
 * disconnects the app in Connected apps and the token stops working.
 */
describe('OAuth consent in the console (browser)', function () {
  this.timeout(180_000);
  this.bail(true);
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let user: TestUser;
  let callback: http.Server;
  let redirectUri = '';
  let received: URL | undefined;
  let fixture: HttpsFixture;
  let previous: Dispatcher | undefined;
  const upstreams = new TestUpstreams();
  const pageErrors: string[] = [];
  let ide: MemoryOAuthProvider;

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      if (process.env.CI) throw new Error(`Chromium is missing at ${CHROMIUM}`);
      console.log(`      (skipped: no Chromium at ${CHROMIUM}; apt-get install -y chromium to run the browser tests)`);
      this.skip();
    }
    ensureConsoleBuilt();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fixture = await startHttpsFixture();
    previous = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: [...rootCertificates, fixture.ca.toString()] } }));
    // The native client's loopback redirect listener.
    callback = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', redirectUri);
      // The browser also asks for a favicon: only the redirect itself counts.
      if (url.pathname === '/callback') received = url;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Connected</title><h1>You can close this window</h1>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*,localhost:*' }, start: { upstreams } });
    user = await createUser(t, 'admin');
    const gh = putFixtureServer(t.server.services.catalog, 'github', [{ name: 'create_issue', description: 'Open an issue' }]);
    await t.owner.post('/api/v1/bundles', { name: 'Engineering', tools: [{ tool_id: gh.tools.create_issue!.id }] });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, baseURL: t.url });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
    await new Promise<void>((resolve) => (callback ? callback.close(() => resolve()) : resolve()));
    await fixture?.close();
    if (previous) setGlobalDispatcher(previous);
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  /** The SDK's flow with the consent page driven in the browser; answers the provider holding tokens. */
  async function connectInBrowser(provider: MemoryOAuthProvider, clientName: string, signIn: boolean): Promise<void> {
    const gateway = `${t.url}/mcp/gateway`;
    received = undefined;
    expect(await auth(provider, { serverUrl: gateway })).to.equal('REDIRECT');
    await page.goto(provider.authorizationUrl!.toString());
    if (signIn) {
      await page.getByRole('heading', { name: 'Sign in to Toolgate' }).waitFor();
      await page.getByLabel('API key').fill(user.key);
      await page.getByRole('button', { name: 'Sign in with API key' }).click();
    }
    await page.getByRole('heading', { name: `Allow ${clientName} to use your tools?` }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/oauth/consent');
    expect(await page.getByTestId('redirect-host').textContent()).to.equal(new URL(redirectUri).host);
    expect(await page.getByTestId('bundles').textContent()).to.include('Engineering');
    await page.getByText('an application on this computer').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, `oauth-consent-${signIn ? 'dcr' : 'cimd'}.png`), fullPage: true });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'You can close this window' }).waitFor();
    const back = received!;
    expect(back.searchParams.get('state')).to.equal(provider.expectedState);
    expect(back.searchParams.get('iss')).to.equal(t.url);
    expect(await auth(provider, { serverUrl: gateway, authorizationCode: back.searchParams.get('code')! })).to.equal('AUTHORIZED');
    const transport = new StreamableHTTPClientTransport(new URL(gateway), { authProvider: provider });
    const client = new Client({ name: 'browser-oauth-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).to.deep.equal(['create_issue']);
      expect((await client.callTool({ name: 'create_issue', arguments: { title: 'From OAuth' } })).isError).to.not.equal(true);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  }

  it('connects a client registered by DCR after sign-in and approval in the console', async () => {
    const provider = new MemoryOAuthProvider({ redirectUri, name: 'Desktop Assistant' });
    await connectInBrowser(provider, 'Desktop Assistant', true);
  });

  it('connects a client identified by a metadata document (CIMD)', async () => {
    const clientId = `${fixture.url}/clients/ide.json`;
    fixture.documents.set('/clients/ide.json', {
      client_id: clientId,
      client_name: 'Example IDE',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    });
    ide = new MemoryOAuthProvider({ redirectUri, clientMetadataUrl: clientId });
    await connectInBrowser(ide, 'Example IDE', false);
  });

  it('lists the connected apps and disconnects one; its token stops working', async () => {
    await page.goto('/apps');
    await page.getByRole('heading', { name: 'Connected apps', level: 1 }).waitFor();
    const mine = page.locator('section', { has: page.getByRole('heading', { name: 'Your connected apps' }) });
    await mine.getByText('Desktop Assistant').waitFor();
    await mine.getByText('Example IDE').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'oauth-connected-apps.png'), fullPage: true });
    const gateway = `${t.url}/mcp/gateway`;
    const ping = () =>
      fetch(gateway, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ide.saved!.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }).then(async (r) => (await r.body?.cancel(), r.status));
    expect(await ping()).to.not.equal(401);
    await mine.getByRole('button', { name: 'Disconnect Example IDE' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
    await mine.getByText('Example IDE').waitFor({ state: 'detached' });
    const left = await t.server.services.connectedApps.listGrants(user.id);
    expect(left.items.map((g) => g.client_name)).to.deep.equal(['Desktop Assistant']);
    expect(await ping()).to.equal(401);
  });
});
