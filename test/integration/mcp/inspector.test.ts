import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureNode22Tools, NODE22, TOOLS } from '../../../scripts/node22.js';
import { ApiClient } from '../../helpers/api-client.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { createUser } from '../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const run = promisify(execFile);
// The Inspector needs Node 22: it lives in tools/node22, installed on demand (scripts/node22.ts).
const INSPECTOR = TOOLS.inspector;

/** The official MCP Inspector CLI, a second real client, against the MCP endpoints. */
describe('MCP Inspector CLI against /mcp/bundle/{bundle_key}', function () {
  this.timeout(90000);
  let t: TestServer;
  let fixture: FixtureBundle;
  let home: string;

  before(async function () {
    this.timeout(600000); // the first run installs the Node 22 tools
    await ensureNode22Tools();
    t = await startTestServer();
    fixture = await setupFixtureBundle(t.owner, t.url, {
      tools: ['echo', 'echo_args'],
      overrides: { echo_args: { name: 'lookup', pinned: { mode: 'safe' } } },
    });
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-inspector-'));
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  async function inspector(...args: string[]): Promise<any> {
    const { stdout } = await run(NODE22, [INSPECTOR, '--cli', fixture.endpoint, '--transport', 'http', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json') },
      timeout: 60000,
    });
    return JSON.parse(stdout);
  }

  it('lists the bundle tools, overrides applied', async () => {
    const out = await inspector('--method', 'tools/list');
    const names = (out.tools as { name: string }[]).map((x) => x.name);
    expect(names).to.deep.equal(['echo', 'lookup']);
  });

  it('calls a tool by its bundle name and gets the upstream result', async () => {
    const out = await inspector('--method', 'tools/call', '--tool-name', 'lookup', '--tool-arg', 'text=hello');
    expect(out.isError ?? false).to.equal(false);
    expect(out.structuredContent).to.deep.equal({ received: { text: 'hello', mode: 'safe' } });
  });
});

/** The Inspector CLI against the gateway endpoint, with a user API key, in both modes. */
describe('MCP Inspector CLI against /mcp/gateway', function () {
  this.timeout(90000);
  let t: TestServer;
  let home: string;
  let key: string;

  before(async function () {
    this.timeout(600000);
    await ensureNode22Tools();
    t = await startTestServer();
    await setupFixtureBundle(t.owner, t.url, {
      name: 'inspected',
      tools: ['echo', 'echo_args'],
      overrides: { echo_args: { name: 'lookup', pinned: { mode: 'safe' } } },
    });
    const user = await createUser(t, 'admin', { scopes: ['mcp', 'api:write'] });
    key = user.key;
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-inspector-'));
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  async function inspector(...args: string[]): Promise<any> {
    const { stdout } = await run(
      NODE22,
      [INSPECTOR, '--cli', `${t.url}/mcp/gateway`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json') }, timeout: 60000 },
    );
    return JSON.parse(stdout);
  }

  it('lists the tools of the user bundles (direct mode) and calls one', async () => {
    const out = await inspector('--method', 'tools/list');
    expect((out.tools as { name: string }[]).map((x) => x.name)).to.deep.equal(['echo', 'lookup']);
    const called = await inspector('--method', 'tools/call', '--tool-name', 'lookup', '--tool-arg', 'text=hello');
    expect(called.structuredContent).to.deep.equal({ received: { text: 'hello', mode: 'safe' } });
  });

  it('lists search and execute, finds a tool and executes it (search_execute mode)', async () => {
    const res = await new ApiClient(t.url, key).put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' });
    expect(res.status).to.equal(200);
    const out = await inspector('--method', 'tools/list');
    expect((out.tools as { name: string }[]).map((x) => x.name)).to.deep.equal(['search', 'execute']);
    const found = await inspector('--method', 'tools/call', '--tool-name', 'search', '--tool-arg', 'query=lookup');
    expect(found.structuredContent.tools.map((x: { name: string }) => x.name)).to.include('lookup');
    const executed = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'execute',
      '--tool-arg',
      'name=lookup',
      '--tool-arg',
      'arguments={"text":"hi"}',
    );
    expect(executed.structuredContent).to.deep.equal({ received: { text: 'hi', mode: 'safe' } });
  });
});
