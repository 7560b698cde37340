import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ensureConsoleBuilt } from '../helpers/console-build.js';
import { ROOT } from '../helpers/contract.js';
import { RawSession } from '../helpers/mcp-http.js';
import { seedSecret } from '../helpers/secrets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startFixtureHttp, waitFor, type ChildServer } from '../helpers/upstreams.js';

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
    [t, upstream, browser] = await Promise.all([
      startTestServer(),
      startFixtureHttp('http'),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }),
    ]);
    console.log(`      (server, upstream and browser started in ${Date.now() - started} ms)`);
    context = await browser.newContext({ viewport: LAPTOP, baseURL: t.url, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
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
    await sleepSwitch.uncheck();
    await waitFor('sleep disabled', async () => !(await sleepSwitch.isChecked()) && !(await sleepSwitch.isDisabled()));
    const tools = await t.owner.get('/api/v1/tools?search=sleep');
    expect(tools.body.items.find((x: { name: string }) => x.name === 'sleep').enabled).to.equal(false);
    await sleepSwitch.check();
    await waitFor('sleep enabled', async () => (await sleepSwitch.isChecked()) && !(await sleepSwitch.isDisabled()));

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
    await screenshot('api-keys');

    await page.getByRole('button', { name: 'Revoke ci pipeline' }).first().click();
    await page
      .getByRole('dialog', { name: /Revoke ci pipeline/ })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await waitFor('a key revoked', async () => (await page.getByText('revoked or expired').count()) >= 1);
  });

  it('shows the call on the dashboard, refreshing without a reload (or says the dashboard is not available yet)', async () => {
    const probe = await t.owner.get('/api/v1/dashboard');
    await page.goto('/dashboard');
    if (probe.status === 501) {
      await page.getByText('The dashboard is not available yet.').waitFor();
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

  it('renders every other view (signed in as the owner), with labels on every control', async () => {
    const views: [string, string][] = [
      ['/users', 'Users & invitations'],
      ['/settings/auth', 'Sign-in & OAuth'],
      ['/settings/general', 'General settings'],
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
    expect(await page.evaluate('document.activeElement?.textContent')).to.equal('Servers');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).to.equal('Add server');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await skip.focus();
    expect((await skip.boundingBox())!.y).to.be.at.least(0);
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).to.equal('main');
  });

  it('signs out: the session cookie no longer works', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'access_token')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Toolgate' }).waitFor();
    const res = await t.anon.get('/api/v1/users/me', { cookie: `access_token=${cookie.value}` });
    expect(res.status).to.equal(401);
  });
});
