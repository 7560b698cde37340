import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { setupFixtureBundle } from '../helpers/fixture-bundle.js';
import { ACCEPT_BOTH, mcpFetch, responseOf } from '../helpers/mcp-http.js';
import { runCli, startMain, type ServerProcess } from '../helpers/processes.js';
import { LOOPBACK_UPSTREAMS, TEST_DATABASE_URL } from '../helpers/test-server.js';

const KEY = /\b(tg_usr_live_[A-Za-z0-9_-]+)/;

/**
 * A Ctrl-C in a terminal, or systemd's stop, signals Toolgate's whole process group. The stdio
 * upstreams run in groups of their own, so they keep serving the calls in flight while Toolgate
 * drains, and are stopped by Toolgate afterwards.
 */
describe('a signal to the server process group (Ctrl-C, systemd stop)', function () {
  this.timeout(180000);
  let dataDir: string;
  let server: ServerProcess | undefined;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-pgroup-'));
    const env = {
      PORT: '0',
      TOOLGATE_DATA_DIR: dataDir,
      TOOLGATE_SHUTDOWN_TIMEOUT_MS: '15000',
      ...LOOPBACK_UPSTREAMS,
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL, TOOLGATE_DB_SCHEMA: `tg_pgroup_${process.pid}` } : {}),
    };
    // A group of its own, as a shell gives a job: the signal below reaches this group only.
    server = await startMain(env, { detached: true });
    const cli = await runCli(['bootstrap', '--email', 'pgroup@example.com', '--name', 'Group'], env);
    expect(cli.code).to.equal(0, cli.stderr);
    (server as ServerProcess & { key: string }).key = KEY.exec(cli.stdout)![1]!;
  });
  after(async () => {
    if (server && server.child.exitCode === null) {
      try {
        process.kill(-server.child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets a call in flight on a stdio upstream finish, then exits 0', async () => {
    const s = server as ServerProcess & { key: string };
    const fixture = await setupFixtureBundle(new ApiClient(s.url, s.key), s.url, { tools: ['sleep'] });
    const init = await mcpFetch(fixture.endpoint, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pgroup', version: '1' } },
      },
      headers: { accept: ACCEPT_BOTH },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    const call = mcpFetch(fixture.endpoint, {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 3000 } } },
      headers: { accept: ACCEPT_BOTH, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    });
    await new Promise((r) => setTimeout(r, 500));
    const exited = s.exited;
    // What a terminal's Ctrl-C does: SIGINT to every process of the foreground group.
    process.kill(-s.child.pid!, 'SIGINT');
    const reply = responseOf(await call);
    expect(reply.error, JSON.stringify(reply)).to.equal(undefined);
    expect(reply.result.isError ?? false).to.equal(false);
    expect(await exited).to.equal(0);
  });
});
