import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fixtureStdio, register, waitConnected } from '../../../helpers/upstreams.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';

describe('TOOLGATE_STDIO_COMMANDS: the commands stdio upstreams may run', function () {
  this.timeout(60000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_STDIO_COMMANDS: 'uvx,/opt/tools/bin/server' } });
  });
  after(() => t?.stop());

  it('refuses to register a stdio server whose command is not on the list (422 naming the field), and stores nothing', async () => {
    const name = `refused-${randomUUID().slice(0, 8)}`;
    const res = await t.owner.post('/api/v1/servers', { name, transport: 'stdio', ...fixtureStdio() });
    expect(res.status).to.equal(422);
    expect(res.body.detail[0]).to.deep.include({ loc: ['body', 'command'], type: 'command_not_allowed' });
    expect(res.body.detail[0].msg).to.include('TOOLGATE_STDIO_COMMANDS');
    const listed = await t.owner.get(`/api/v1/servers?search=${name}`);
    expect(listed.body.total).to.equal(0);
  });

  it('refuses to change a server to a command not on the list', async () => {
    const http = await register(t.owner, {
      name: `http-${randomUUID().slice(0, 8)}`,
      transport: 'streamable_http',
      url: 'http://127.0.0.1:9/mcp',
      enabled: false,
    });
    const res = await t.owner.patch(`/api/v1/servers/${http.id}`, { transport: 'stdio', ...fixtureStdio() });
    expect(res.status).to.equal(422);
    expect(res.body.detail[0]).to.deep.include({ loc: ['body', 'command'], type: 'command_not_allowed' });
    expect((await t.owner.get(`/api/v1/servers/${http.id}`)).body.transport).to.equal('streamable_http');
  });

  it('does not start a server registered before the list, and says why', async () => {
    const id = randomUUID();
    const { command, args, cwd } = fixtureStdio();
    await t.server.services.db.knex('mcp_servers').insert({
      id,
      name: `before-list-${id.slice(0, 8)}`,
      transport: 'stdio',
      command,
      args: JSON.stringify(args),
      env: JSON.stringify({}),
      cwd,
      header_names: JSON.stringify([]),
      secret_env_keys: JSON.stringify([]),
      enabled: true,
    });
    await t.server.services.catalogSync.applyRemoteChange(id);
    expect(t.server.services.pool.has(id)).to.equal(false);
    const view = await t.owner.get(`/api/v1/servers/${id}`);
    expect(view.body.last_error).to.include('TOOLGATE_STDIO_COMMANDS');
  });
});

describe('TOOLGATE_STDIO_COMMANDS naming the command', function () {
  this.timeout(60000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_STDIO_COMMANDS: `uvx,${path.basename(process.execPath)}` } });
  });
  after(() => t?.stop());

  it('registers and starts a server whose command is on the list', async () => {
    const server = await register(t.owner, { name: `allowed-${randomUUID().slice(0, 8)}`, transport: 'stdio', ...fixtureStdio() });
    await waitConnected(t.owner, server.id);
  });
});
