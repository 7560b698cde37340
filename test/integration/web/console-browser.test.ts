import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt } from '../../helpers/console-build.js';
import { assertResponseMatchesContract, ROOT } from '../../helpers/contract.js';
import { RawSession } from '../../helpers/mcp-http.js';
import { createUser } from '../../helpers/identity.js';
import { seedSecret } from '../../helpers/secrets.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { FakeAuthorizationServer, ProtectedMcpServer } from '../../fixtures/oauth-upstream.js';
import { EVERYTHING_BIN, startFixtureHttp, waitFor, type ChildServer } from '../../helpers/upstreams.js';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');
const LAPTOP = { width: 1366, height: 900 };
const TABLET = { width: 820, height: 1180 };

/**
 * The web console in a real browser (headless Debian Chromium through playwright-core): sign in
 * with an API key, add the fixture upstream over Streamable HTTP, build a bundle with an
 * override and see its live preview, copy the bundle URL and call a tool through it, rotate a
 * key, and see the call on the dashboard (once the dashboard operations are built; until then
 * the dashboard must say it is not available yet). Screenshots of every view go to
 * test-artifacts/console/.
 */
describe('web console in a browser', function () {
  this.timeout(180_000);
  // One story in order: once a step fails, the later ones cannot mean anything.
  this.bail(true);
  let t: TestServer;
  let upstream: ChildServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shot = 0;
  const pageErrors: string[] = [];
  let bundleUrl = '';

  const screenshot = async (name: string, p: Page = page) => {
    shot += 1;
    await p.evaluate('window.scrollTo(0, 0)');
    await p.screenshot({ path: path.join(ARTIFACTS, `${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
  };

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      if (process.env.CI) throw new Error(`Chromium is missing at ${CHROMIUM}: install it (apt-get install -y chromium)`);
      console.log(`      (skipped: no Chromium at ${CHROMIUM}; apt-get install -y chromium to run the browser tests)`);
      this.skip();
    }
    ensureConsoleBuilt();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    for (const f of fs.readdirSync(ARTIFACTS)) if (f.endsWith('.png')) fs.rmSync(path.join(ARTIFACTS, f));
    const started = Date.now();
    // One after the other: on a loaded machine, starting all three at once starves each of them.
    upstream = await startFixtureHttp('http').catch(() => startFixtureHttp('http'));
    // The fixture upstream is on loopback, which the outbound policy refuses unless allow-listed.
    t = await startTestServer({ env: LOOPBACK_UPSTREAMS });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    console.log(`      (server, upstream and browser started in ${Date.now() - started} ms)`);
    context = await browser.newContext({ viewport: LAPTOP, baseURL: t.url, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content.Security.Policy|Refused to/i.test(msg.text())) pageErrors.push(msg.text());
    });
  });

  after(async () => {
    await browser?.close();
    await Promise.all([t?.stop(), upstream?.stop()]);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page)
      await screenshot(`failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
    expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]);
  });

  it('shows the sign-in page, refuses a bad key next to the field, and signs in with an API key', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in to Toolgate' }).waitFor();
    await expect(page.getByText('No OAuth provider is configured yet')).to.be.ok;
    await screenshot('sign-in');

    await page.getByLabel('API key').fill('tg_usr_live_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in with API key' }).click();
    await page.locator('.field.invalid').getByText('Invalid, expired or revoked API key').waitFor();

    await page.getByLabel('API key').fill(t.ownerKey);
    await page.getByRole('button', { name: 'Sign in with API key' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/dashboard');

    // The key was exchanged for the HttpOnly cookie; nothing secret is readable by scripts.
    const storage = String(
      await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie'),
    );
    expect(storage).to.not.include(t.ownerKey);
    expect(storage).to.not.include('access_token');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'access_token');
    expect(session?.httpOnly).to.equal(true);
    expect(session?.sameSite).to.equal('Lax');
  });

  it('adds the fixture upstream over Streamable HTTP, with the API 422 shown at the field it names', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a server' });
    await dialog.getByLabel('Transport').selectOption('streamable_http');
    await dialog.getByLabel('Name').fill('not a valid name!');
    await dialog.getByLabel('URL').fill(upstream.url);
    await dialog.getByLabel('Request headers').fill('X-Fixture-Token: s3cret-fixture-header-value');
    seedSecret('s3cret-fixture-header-value');
    await dialog.getByRole('button', { name: 'Add server' }).click();
    const nameField = dialog.locator('.field.invalid', { has: page.getByLabel('Name') });
    await nameField.locator('.field-error').waitFor();
    expect(await nameField.locator('.field-error').textContent()).to.match(/pattern|match/i);
    await screenshot('server-form-422');

    await dialog.getByLabel('Name').fill('fixture');
    await dialog.getByRole('button', { name: 'Add server' }).click();
    await page.getByRole('heading', { name: 'fixture', level: 1 }).waitFor();
    await page.locator('.pill', { hasText: 'connected' }).first().waitFor({ timeout: 30_000 });
    // Write-only: the header's name is shown, its value never.
    expect(await page.getByText('X-Fixture-Token').count()).to.be.greaterThan(0);
    expect(await page.content()).to.not.include('s3cret-fixture-header-value');
    await page.getByRole('tab', { name: /Tools/ }).click();
    await page.getByRole('rowheader', { name: /^echo\b/ }).waitFor();
    await screenshot('server-detail');

    // Disable and re-enable one tool from the tool selection.
    const sleepSwitch = page.getByRole('switch', { name: 'Enable sleep' });
    const sleepEnabled = async () =>
      (await t.owner.get('/api/v1/tools?search=sleep')).body.items.find((x: { name: string }) => x.name === 'sleep').enabled as boolean;
    await sleepSwitch.uncheck();
    await waitFor('sleep disabled', async () => !(await sleepEnabled()));
    await waitFor(
      'the switch settled off',
      async () => (await sleepSwitch.getAttribute('aria-busy')) === null && !(await sleepSwitch.isChecked()),
    );
    await sleepSwitch.check();
    await waitFor('sleep enabled', sleepEnabled);

    await page.goto('/servers');
    await page.getByRole('link', { name: 'fixture' }).waitFor();
    await screenshot('servers');
  });

  it('builds a bundle from the catalog, overrides a tool with a live preview, and reorders by dragging', async () => {
    await page.goto('/bundles');
    await page.getByRole('button', { name: 'New bundle' }).click();
    const create = page.getByRole('dialog', { name: 'New bundle' });
    await create.getByLabel('Name').fill('Support agent');
    await create.getByLabel('Description').fill('Tools for the support assistant');
    await create.getByRole('button', { name: 'Create bundle' }).click();
    await page.getByRole('heading', { name: 'Support agent', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Add tools' }).click();
    const add = page.getByRole('dialog', { name: 'Add tools from the catalog' });
    await add.getByLabel('Search the catalog').fill('echo');
    await add.locator('.catalog-item', { hasText: 'echo_args' }).waitFor();
    await add
      .locator('.catalog-item', { has: page.locator('code', { hasText: /^echo$/ }) })
      .getByRole('checkbox')
      .check();
    await add.locator('.catalog-item', { hasText: 'echo_args' }).getByRole('checkbox').check();
    await add.getByRole('button', { name: 'Add 2 tools' }).click();
    await page.locator('.tool-row').nth(1).waitFor();
    expect(await page.locator('.tool-row .tool-name').allTextContents()).to.deep.equal(['echo', 'echo_args']);

    // Override echo: new name, description, a default; the preview follows every keystroke.
    await page
      .locator('.tool-row', { has: page.locator('.tool-name', { hasText: /^echo$/ }) })
      .getByRole('button', { name: 'Override' })
      .click();
    const editor = page.getByRole('dialog', { name: /Override fixture \/ echo/ });
    const preview = editor.getByTestId('override-preview');
    await preview.waitFor();
    expect(JSON.parse((await preview.textContent())!)).to.include({ name: 'echo', description: 'Returns its input' });
    await editor.getByLabel('Name').fill('say');
    await editor.getByLabel('Description').fill('Says the text back to you');
    await editor.getByLabel('Defaults').fill('{"text": "hello from the default"}');
    await editor.getByLabel('Read-only').selectOption('false');
    const shown = JSON.parse((await preview.textContent())!);
    expect(shown).to.include({ name: 'say', description: 'Says the text back to you' });
    expect(shown.annotations).to.include({ readOnlyHint: false });
    expect(shown.inputSchema.properties.text.default).to.equal('hello from the default');
    expect(shown.inputSchema.required ?? []).to.not.include('text');
    await screenshot('bundle-override-preview');

    // A pinned argument that the tool does not have: the API's 422 appears at "Pinned values".
    await editor.getByLabel('Pinned values').fill('{"no_such_argument": 1}');
    await editor.getByRole('button', { name: 'Save override' }).click();
    await editor
      .locator('.field.invalid', { has: page.getByLabel('Pinned values') })
      .getByText(/no_such_argument/)
      .waitFor();
    await editor.getByLabel('Pinned values').fill('');
    await editor.getByRole('button', { name: 'Save override' }).click();
    await editor.waitFor({ state: 'hidden' });
    await page.locator('.tool-row .tool-name', { hasText: /^say$/ }).waitFor();

    // Drag echo_args above say.
    const rows = page.locator('.tool-row');
    await rows.nth(1).locator('.handle').dragTo(rows.nth(0));
    await waitFor('order saved', async () => {
      const order = (await t.owner.get(`/api/v1/bundles/${new URL(page.url()).pathname.split('/').pop()}`)).body.tools.map(
        (x: any) => x.effective.name,
      );
      return order.join(',') === 'echo_args,say';
    });
    // And back with the keyboard.
    await page.getByRole('button', { name: /Reorder say, position 2/ }).focus();
    await page.keyboard.press('ArrowUp');
    await page.getByRole('button', { name: /Reorder say, position 1/ }).waitFor();
    expect(await page.locator('.tool-row .tool-name').allTextContents()).to.deep.equal(['say', 'echo_args']);
    await screenshot('bundle-detail');
  });

  it('copies the bundle URL and a client config, and the copied URL serves the overridden tool', async () => {
    // After a reload the page no longer holds the key: it is revealed on request.
    await page.reload();
    await page.getByRole('button', { name: 'Show endpoint URL' }).click();
    await page.getByRole('button', { name: 'Copy URL' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    bundleUrl = String(await page.evaluate('navigator.clipboard.readText()'));
    seedSecret(bundleUrl.split('/').pop()!);
    expect(bundleUrl).to.match(new RegExp(`^${t.url}/mcp/bundle/[A-Za-z0-9_-]+$`));
    expect(await page.locator('.snippet pre').first().textContent()).to.include(bundleUrl);

    const mcp = new RawSession(bundleUrl, '2025-11-25');
    expect((await mcp.initialize()).status).to.equal(200);
    const result = await mcp.call('say', {});
    expect(result.result.content[0].text).to.equal('hello from the default');
    const listed = await mcp.request('tools/list');
    const names = (listed.json ?? listed.events.at(-1)).result.tools.map((x: { name: string }) => x.name);
    expect(names).to.deep.equal(['say', 'echo_args']);
    await screenshot('bundle-endpoint');
  });

  it('creates an API key shown once, rotates it with a grace period, and revokes one', async () => {
    await page.goto('/keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    await create.getByLabel('Name').fill('ci pipeline');
    await create.getByRole('button', { name: 'Create key' }).click();
    const shownDialog = page.getByRole('dialog', { name: 'Your new API key' });
    const first = await shownDialog.getByLabel('API key').inputValue();
    seedSecret(first);
    expect(first).to.match(/^tg_usr_live_/);
    await screenshot('api-key-shown-once');
    await shownDialog.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.content()).to.not.include(first);

    await page.getByRole('button', { name: 'Rotate ci pipeline' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate ci pipeline' });
    await rotate.getByLabel('The old key').selectOption('3600');
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = page.getByRole('dialog', { name: 'Your rotated API key' });
    const second = await rotated.getByLabel('API key').inputValue();
    seedSecret(second);
    expect(second).to.not.equal(first);
    await rotated.getByText(/old key keeps working until/).waitFor();
    await rotated.getByRole('button', { name: 'I have stored it' }).click();
    expect((await t.anon.as(first).get('/api/v1/users/me')).status).to.equal(200);
    expect((await t.anon.as(second).get('/api/v1/users/me')).status).to.equal(200);
    // The old key says it was rotated (and still works for its grace period), not "revoked or expired".
    await page.getByText('rotated (grace period)').waitFor();
    expect(await page.getByText('revoked or expired').count()).to.equal(0);
    await screenshot('api-keys');

    await page.getByRole('button', { name: 'Revoke ci pipeline' }).first().click();
    await page
      .getByRole('dialog', { name: /Revoke ci pipeline/ })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await waitFor('a key revoked', async () => (await page.locator('td .pill', { hasText: /^revoked$/ }).count()) >= 1);
    // Every row's Actions cell holds something: its actions, or a dash.
    const cells = await page.locator('tbody td.row-actions').allInnerTexts();
    expect(cells.length).to.be.greaterThan(1);
    for (const text of cells) expect(text.trim()).to.not.equal('');
  });

  it('answers a sandboxed server’s network request on its page: approves the hosts it asked for, and edits the list', async () => {
    const everything = fs.realpathSync(EVERYTHING_BIN);
    const created = await t.owner.post('/api/v1/servers', {
      name: 'jailed-everything',
      transport: 'stdio',
      command: process.execPath,
      args: [everything, 'stdio'],
      cwd: path.dirname(everything),
      sandboxed: true,
      enabled: false,
    });
    expect(created.status, created.text).to.equal(201);
    await t.server.services.servers.requestNetwork(created.body.id, ['api.example.com'], 'browser test');
    // The servers list points at the pending request.
    await page.goto('/servers');
    await page
      .getByRole('row', { name: /jailed-everything/ })
      .getByText('network request')
      .waitFor();
    await page.goto(`/servers/${created.body.id}`);
    await page.getByRole('heading', { name: 'jailed-everything', level: 1 }).waitFor();
    await page.getByText('sandboxed', { exact: true }).waitFor();
    await page.getByText('This server asks for network access to:').waitFor();
    await screenshot('server-network-request');
    await page.getByRole('button', { name: 'Approve these hosts' }).click();
    await page.getByText('Saved; the server restarts with the new list.').waitFor();
    expect(await page.getByText('This server asks for network access to:').count()).to.equal(0);
    expect((await t.owner.get(`/api/v1/servers/${created.body.id}`)).body.network).to.deep.equal({
      approved_hosts: ['api.example.com'],
      requested_hosts: null,
    });
    await page.getByLabel('Approved hosts').fill('api.example.com\ndb.example.com:5432');
    await page.getByRole('button', { name: 'Save network list' }).click();
    await waitFor(
      'the list saved',
      async () => (await t.owner.get(`/api/v1/servers/${created.body.id}`)).body.network.approved_hosts.length === 2,
    );
    await page.getByLabel('Approved hosts').fill('not a host');
    await page.getByRole('button', { name: 'Save network list' }).click();
    await page.getByText(/Not a host/).waitFor();
    await t.owner.delete(`/api/v1/servers/${created.body.id}`);
  });

  it('shows admins who has connected a server behind OAuth, and until when, never a token', async () => {
    const as = await new FakeAuthorizationServer({ dcr: true }).start();
    const protectedMcp = await new ProtectedMcpServer(as).start();
    let id = '';
    try {
      const created = await t.owner.post('/api/v1/servers', {
        name: 'oauth-upstream',
        transport: 'streamable_http',
        url: protectedMcp.url,
        auth_mode: 'oauth_per_user',
      });
      expect(created.status, created.text).to.equal(201);
      id = created.body.id;
      await page.goto(`/servers/${id}`);
      await page.getByRole('heading', { name: 'Connections' }).waitFor();
      await page.getByText(/Nobody has connected this server yet/).waitFor();
      // The owner connects, as a browser would: Toolgate's authorization URL, the AS's redirect, the callback.
      const started = await t.owner.post(`/api/v1/users/me/upstream-connections/${id}/connect`);
      expect(started.status, started.text).to.equal(200);
      const approved = await fetch(started.body.authorization_url, { redirect: 'manual' });
      expect((await fetch(approved.headers.get('location')!, { redirect: 'manual' })).status).to.be.oneOf([302, 303]);
      await page.reload();
      const row = page.getByRole('row', { name: /owner@example\.com/ });
      await row.getByText('connected', { exact: true }).waitFor();
      expect(await row.locator('time').count(), 'expiry and refresh times').to.equal(2);
      await screenshot('server-connections');
      const html = await page.content();
      expect(as.tokens.size).to.be.greaterThan(0);
      for (const token of as.tokens.keys()) expect(html).to.not.include(token);
    } finally {
      if (id) await t.owner.delete(`/api/v1/servers/${id}`);
      await Promise.all([protectedMcp.close(), as.close()]);
    }
  });

  it('sets an OAuth server’s client authentication and scopes in the form; private_key_jwt takes a PEM', async () => {
    await page.goto('/servers');
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a server' });
    await dialog.getByLabel('Transport').selectOption('streamable_http');
    await dialog.getByLabel('Name').fill('oauth-form');
    await dialog.getByLabel('URL').fill(upstream.url);
    await dialog.getByLabel('Authorization').selectOption('oauth_shared');
    await dialog.getByLabel('Pre-registered client id').fill('console-client');
    await dialog.getByLabel('Client authentication').selectOption('client_secret_post');
    await dialog.getByLabel('Client secret').fill('console-client-secret-42');
    seedSecret('console-client-secret-42');
    await dialog.getByLabel('Scopes').fill('read  write read');
    await dialog.getByRole('button', { name: 'Add server' }).click();
    await page.getByRole('heading', { name: 'oauth-form', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').at(-1)!;
    try {
      const view = await t.owner.get(`/api/v1/servers/${id}`);
      expect(view.body.oauth).to.deep.equal({
        client_id: 'console-client',
        has_client_secret: true,
        token_endpoint_auth_method: 'client_secret_post',
        scopes: ['read', 'write'],
      });
      // Editing: private_key_jwt asks for a private key in a multi-line box; changing only the scopes keeps the rest.
      await page.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit oauth-form' });
      expect(await edit.getByLabel('Client authentication').inputValue()).to.equal('client_secret_post');
      await edit.getByLabel('Client authentication').selectOption('private_key_jwt');
      expect(await edit.getByLabel('Replace private key (PEM)').evaluate((e) => e.tagName)).to.equal('TEXTAREA');
      await edit.getByLabel('Client authentication').selectOption('client_secret_post');
      await edit.getByLabel('Scopes').fill('read');
      await edit.getByRole('button', { name: /Save/ }).click();
      await edit.waitFor({ state: 'hidden' });
      const after = await t.owner.get(`/api/v1/servers/${id}`);
      expect(after.body.oauth).to.include({
        client_id: 'console-client',
        has_client_secret: true,
        token_endpoint_auth_method: 'client_secret_post',
      });
      expect(after.body.oauth.scopes).to.deep.equal(['read']);
      expect(await page.content()).to.not.include('console-client-secret-42');
    } finally {
      await t.owner.delete(`/api/v1/servers/${id}`);
    }
  });

  it('shows the call on the dashboard, refreshing without a reload (or says the dashboard is not available yet)', async () => {
    const probe = await t.owner.get('/api/v1/dashboard');
    await page.goto('/dashboard');
    if (probe.status === 501) {
      await page.getByText('Not available yet: Dashboard.').waitFor();
      console.log('      (the dashboard operations answer 501 on this build: checked the "not available yet" state only)');
      await screenshot('dashboard-not-available');
      return;
    }
    expect(probe.status).to.equal(200);
    const activity = page.locator('section', { has: page.getByRole('heading', { name: 'Activity' }) });
    await activity.getByLabel('Show').selectOption('tools');
    await activity.locator('tbody tr').first().waitFor();
    const before = await activity.locator('tbody tr', { hasText: 'tools/call' }).count();
    expect(before).to.be.greaterThan(0);
    // One more call while the page is open: it must appear without reloading.
    const mcp = new RawSession(bundleUrl, '2025-11-25');
    await mcp.initialize();
    await mcp.call('say', { text: 'seen on the dashboard' });
    await waitFor(
      'the new call on the dashboard',
      async () => (await activity.locator('tbody tr', { hasText: 'tools/call' }).count()) > before,
      60_000,
      500,
    );
    await page.locator('.stat', { hasText: 'Tool calls (24 h)' }).waitFor();
    await screenshot('dashboard');
  });

  it('draws the dashboard charts, health, top servers and activity from contract-shaped data (under the CSP)', async () => {
    // The dashboard operations may not be built yet: answer them in the browser with data that
    // the contract validates, so the view itself is exercised either way.
    const { overview, charts } = sampleDashboard();
    assertResponseMatchesContract('GET', '/api/v1/dashboard', 200, 'application/json', overview);
    assertResponseMatchesContract('GET', '/api/v1/dashboard/charts', 200, 'application/json', charts);
    const activityFor = (filter: string) => ({
      filter,
      items: overview.activity.items.filter(
        (a) =>
          filter === 'all' ||
          (filter === 'tools' ? a.kind === 'tool_call' : filter === 'errors' ? a.status === 'error' : a.kind === 'admin'),
      ),
    });
    assertResponseMatchesContract('GET', '/api/v1/dashboard/activity', 200, 'application/json', activityFor('errors'));
    const seen: string[] = [];
    // The admin feed is held back until the test lets it go, to see what shows meanwhile.
    let releaseAdmin!: () => void;
    const adminHeld = new Promise<void>((resolve) => (releaseAdmin = resolve));
    await page.route(/\/api\/v1\/dashboard(\/charts|\/activity)?(\?.*)?$/, async (route) => {
      const url = new URL(route.request().url());
      seen.push(url.pathname + url.search);
      if (url.pathname.endsWith('/activity') && url.searchParams.get('activity_filter') === 'admin') await adminHeld;
      const body = url.pathname.endsWith('/charts')
        ? charts
        : url.pathname.endsWith('/activity')
          ? activityFor(url.searchParams.get('activity_filter') ?? 'all')
          : overview;
      await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    });
    try {
      await page.goto('/dashboard');
      await page.locator('.stat', { hasText: 'Tool calls (24 h)' }).getByText('1,234').waitFor();
      expect(await page.locator('.chart canvas').count()).to.be.at.least(2);
      await page.getByRole('rowheader', { name: 'github' }).first().waitFor();
      const activity = page.locator('section', { has: page.getByRole('heading', { name: 'Activity' }) });
      expect(await activity.locator('tbody tr').count()).to.equal(3);
      await activity.getByLabel('Show').selectOption('errors');
      await waitFor('the error filter', async () => (await activity.locator('tbody tr').count()) === 1);
      expect(seen.some((u) => u === '/api/v1/dashboard/activity?activity_filter=errors')).to.equal(true);
      // While the admin feed loads, the errors feed is not shown under the "Admin actions" label.
      await activity.getByLabel('Show').selectOption('admin');
      await activity.getByRole('status').getByText('Loading').waitFor();
      expect(await activity.locator('tbody tr').count()).to.equal(0);
      releaseAdmin();
      await waitFor('the admin filter', async () => (await activity.locator('tbody tr').count()) === 1);
      expect(await activity.locator('tbody tr').first().textContent()).to.include('bundle.create');
      await page.getByText('Show data: Tool calls and errors per hour').click();
      expect(await page.locator('.chart-data table').first().locator('tbody tr').count()).to.equal(24);
      await screenshot('dashboard-sample-data');
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot('dashboard-sample-data-dark');
      await page.emulateMedia({ colorScheme: 'light' });
    } finally {
      await page.unroute(/\/api\/v1\/dashboard/);
    }
  });

  it('renders every other view (signed in as the owner), with labels on every control', async () => {
    const views: [string, string][] = [
      ['/users', 'Users & invitations'],
      ['/teams', 'Teams'],
      ['/policies', 'Tool policy'],
      ['/guardrails', 'Guardrails'],
      ['/tool-changes', 'Tool changes'],
      ['/settings/auth', 'Sign-in & OAuth'],
      ['/settings/general', 'General settings'],
      ['/settings/registry', 'Registry & configuration'],
      ['/settings/ai', 'AI providers'],
      ['/generation', 'Server generation'],
      ['/skills', 'Skills'],
      ['/gateway', 'My gateway'],
    ];
    for (const [route, title] of views) {
      await page.goto(route);
      await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      await waitFor(`${route} loaded`, async () => (await page.locator('.loading').count()) === 0, 10_000);
      const unlabelled = await page.evaluate(`[...document.querySelectorAll('main input, main select, main textarea')]
        .filter((el) => el.type !== 'hidden')
        .filter((el) => !el.labels?.length && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
        .map((el) => el.outerHTML.slice(0, 120))`);
      expect(unlabelled, `${route}: controls without a label`).to.deep.equal([]);
      await screenshot(route.slice(1).replace(/\//g, '-'));
    }
  });

  it('writes a tool policy rule, testing the draft first, and tests the saved policy', async () => {
    await page.goto('/policies');
    await page.getByRole('heading', { name: 'Tool policy', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'New rule' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('No writes');
    await dialog.getByLabel('Tools', { exact: true }).fill('write_*');
    await dialog.locator('summary', { hasText: 'Test this rule' }).click();
    await dialog.getByLabel('Tool (upstream name)').fill('write_note');
    await dialog.getByRole('button', { name: 'Test this rule' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Denied by rule "No writes"' }).waitFor();
    await dialog.getByLabel('Tool (upstream name)').fill('read_note');
    await dialog.getByRole('button', { name: 'Test this rule' }).click();
    await dialog.getByRole('status').filter({ hasText: 'the rule does not apply' }).waitFor();
    await dialog.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('row', { name: /No writes/ }).waitFor();
    const rules = (await t.owner.get('/api/v1/policies')).body.items;
    expect(rules.map((r: { name: string; tools: string[] }) => [r.name, r.tools])).to.deep.equal([['No writes', ['write_*']]]);
    // The page's own box decides with the saved rules.
    await page.getByLabel('Tool (upstream name)').fill('write_anything');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Denied by rule "No writes"' }).waitFor();
    await screenshot('policies');
    expect((await t.owner.delete(`/api/v1/policies/${rules[0].id}`)).status).to.equal(204);
  });

  it('invites someone, and the invitation link opens the public accept page', async () => {
    await page.goto('/users');
    await page.getByRole('button', { name: 'Invite someone' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite someone' });
    await dialog.getByLabel('Email').fill('new.person@example.com');
    await dialog.getByRole('button', { name: 'Create invitation' }).click();
    const link = await page.getByRole('dialog', { name: 'Invitation created' }).getByLabel('Invitation link').inputValue();
    seedSecret(new URL(link).searchParams.get('token')!);
    expect(new URL(link).pathname).to.equal('/invitations/accept');
    const anon = await browser.newContext({ viewport: LAPTOP });
    try {
      const p = await anon.newPage();
      await p.goto(link);
      await p.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
      await p.getByText('new.person@example.com').waitFor();
      await p.getByText('No sign-in provider is enabled yet').waitFor();
      await screenshot('invitation-accept', p);
    } finally {
      await anon.close();
    }
  });

  it('is usable at tablet width (menu button, no horizontal overflow) and by keyboard', async () => {
    await page.setViewportSize(TABLET);
    await page.goto('/bundles');
    await page.getByRole('heading', { name: 'Bundles', level: 1 }).waitFor();
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).to.be.at.most(0);
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).to.equal('false');
    await menu.click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await screenshot('tablet-api-keys');
    await page.goto('/bundles');
    await page.getByRole('link', { name: 'Support agent' }).click();
    await page.getByRole('heading', { name: 'Support agent', level: 1 }).waitFor();
    await screenshot('tablet-bundle');

    // Keyboard: a navigation puts focus on the new page's title; the skip link (visible when
    // focused) moves focus to the content.
    await page.setViewportSize(LAPTOP);
    await page.goto('/servers');
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    // The console moves focus once the page has rendered, which may come a frame after the heading
    // appears: wait (bounded) for it, then check where it went.
    await page.waitForFunction("document.activeElement?.textContent === 'Servers'", undefined, { timeout: 5000 }).catch(() => undefined);
    expect(await page.evaluate('document.activeElement?.textContent')).to.equal('Servers');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).to.equal('Add server');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await skip.focus();
    expect((await skip.boundingBox())!.y).to.be.at.least(0);
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).to.equal('main');
  });

  it('offers a member only the bundles they may use on My gateway (their own), and saves the choice', async () => {
    // Members cannot create bundles: this one was made while its creator was an admin.
    const member = await createUser(t, 'admin');
    seedSecret(member.key);
    const own = await member.client.post('/api/v1/bundles', { name: 'Member bench', tools: [] });
    expect(own.status, own.text).to.equal(201);
    expect((await t.owner.patch(`/api/v1/users/${member.id}`, { role: 'member' })).status).to.equal(200);
    const others = (await t.owner.get('/api/v1/bundles?page_size=100')).body.items.filter((b: { id: string }) => b.id !== own.body.id);
    expect(others.length).to.be.greaterThan(0);
    const ctx = await browser.newContext({ viewport: LAPTOP, baseURL: t.url });
    try {
      const p = await ctx.newPage();
      await p.goto('/');
      await p.getByLabel('API key').fill(member.key);
      await p.getByRole('button', { name: 'Sign in with API key' }).click();
      // Members land on the bundles (the dashboard is for admins).
      await p.getByRole('heading', { name: 'Bundles', level: 1 }).waitFor();
      await p.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'My gateway' }).click();
      await p.getByRole('heading', { name: 'My gateway', level: 1 }).waitFor();
      const group = p.getByRole('group', { name: /Bundles/ });
      await group.getByRole('checkbox', { name: /Member bench/ }).waitFor();
      expect(await group.getByRole('checkbox').count()).to.equal(1);
      for (const b of others) expect(await group.getByRole('checkbox', { name: new RegExp(`^${b.name} \\(`) }).count()).to.equal(0);
      await group.getByRole('checkbox', { name: /Member bench/ }).check();
      await p.getByRole('button', { name: /Save/ }).click();
      await waitFor('the selection saved', async () => {
        const saved = await member.client.get('/api/v1/users/me/gateway-settings');
        return saved.body.bundle_ids.length === 1 && saved.body.bundle_ids[0] === own.body.id;
      });
      await screenshot('member-gateway', p);
    } finally {
      await ctx.close();
    }
  });

  it('signs out: the session cookie no longer works', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'access_token')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Toolgate' }).waitFor();
    const res = await t.anon.get('/api/v1/users/me', { cookie: `access_token=${cookie.value}` });
    expect(res.status).to.equal(401);
  });
});

/** A day of dashboard data as the contract shapes it (DashboardResponse and DashboardCharts). */
function sampleDashboard() {
  const hour = 3600_000;
  const start = Math.floor(Date.now() / hour) * hour - 23 * hour;
  const iso = (ms: number) => new Date(ms).toISOString();
  const wave = (i: number) => Math.round(40 + 30 * Math.sin(i / 3) + (i % 5) * 6);
  const servers = [
    { server_id: '3f6b7c1e-2a4d-4e5f-8a9b-0c1d2e3f4a5b', name: 'github' },
    { server_id: '7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d', name: 'postgres' },
    { server_id: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e', name: 'slack' },
  ];
  const tool_calls = Array.from({ length: 24 }, (_, i) => ({
    bucket: iso(start + i * hour),
    calls: wave(i),
    errors: i % 7 === 3 ? 4 : i % 5 === 0 ? 1 : 0,
  }));
  const latency = Array.from({ length: 24 }, (_, i) => ({
    bucket: iso(start + i * hour),
    p50_ms: i === 4 ? null : 80 + (i % 6) * 9,
    p95_ms: i === 4 ? null : 240 + (i % 4) * 35,
    p99_ms: i === 4 ? null : 480 + (i % 3) * 90,
  }));
  const overview = {
    stats: {
      servers_total: 3,
      servers_connected: 2,
      servers_error: 1,
      tools_total: 64,
      tools_enabled: 58,
      bundles_total: 4,
      users_total: 9,
      api_keys_active: 12,
      calls_24h: 1234,
      errors_24h: 17,
      error_rate_24h: 17 / 1234,
      p50_latency_ms_24h: 92.5,
      p95_latency_ms_24h: 310,
    },
    health: [
      {
        ...servers[2]!,
        status: 'error',
        latency_ms: null,
        last_checked_at: iso(Date.now() - 60_000),
        last_error: 'connect ECONNREFUSED 10.0.0.7:443',
      },
      { ...servers[0]!, status: 'connected', latency_ms: 41.2, last_checked_at: iso(Date.now() - 20_000), last_error: null },
      { ...servers[1]!, status: 'connected', latency_ms: 8.9, last_checked_at: iso(Date.now() - 35_000), last_error: null },
    ],
    activity: {
      filter: 'all',
      items: [
        {
          id: 'c0a80101-0000-4000-8000-000000000001',
          kind: 'tool_call',
          timestamp: iso(Date.now() - 30_000),
          actor: 'Support agent',
          action: 'tools/call',
          target: 'github.create_issue',
          status: 'success',
          latency_ms: 212,
          details: {},
        },
        {
          id: 'c0a80101-0000-4000-8000-000000000002',
          kind: 'error',
          timestamp: iso(Date.now() - 90_000),
          actor: 'ana@example.com',
          action: 'tools/call',
          target: 'slack.post_message',
          status: 'error',
          latency_ms: 30001,
          details: { error: 'timeout' },
        },
        {
          id: 'c0a80101-0000-4000-8000-000000000003',
          kind: 'admin',
          timestamp: iso(Date.now() - 600_000),
          actor: 'owner@example.com',
          action: 'bundle.create',
          target: 'Support agent',
          status: 'success',
          latency_ms: null,
          details: {},
        },
      ],
    },
    top_servers: [
      { ...servers[0]!, calls: 801, errors: 3, avg_latency_ms: 120.4 },
      { ...servers[1]!, calls: 390, errors: 0, avg_latency_ms: 22.1 },
      { ...servers[2]!, calls: 43, errors: 14, avg_latency_ms: 2400 },
    ],
    generated_at: iso(Date.now()),
  };
  const charts = {
    window: { from: iso(start), to: iso(start + 24 * hour), bucket_seconds: 3600 },
    tool_calls,
    latency,
    server_load: overview.top_servers.map((s) => ({ server_id: s.server_id, name: s.name, calls: s.calls })),
  };
  return { overview, charts };
}
