import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureNode22Tools, NODE22, TOOLS } from '../../scripts/node22.js';
import { setupFixtureBundle, type FixtureBundle } from '../helpers/fixture-bundle.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
// The Inspector needs Node 22: it lives in tools/node22, installed on demand (scripts/node22.ts).
const INSPECTOR = TOOLS.inspector;

/** The official MCP Inspector CLI, a second real client, against a bundle endpoint. */
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
