import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { capturedLogs, LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { fixtureStdio, freePort, register, waitConnected } from '../../../helpers/upstreams.js';

/** A URL nothing listens on (a port just freed on loopback). */
let DEAD_URL = 'http://127.0.0.1:1/mcp';

describe('MCP server registry (REST)', function () {
  this.timeout(60000);
  let t: TestServer;
  before(async () => {
    DEAD_URL = `http://127.0.0.1:${await freePort()}/mcp`;
    t = await startTestServer({
      env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_UPSTREAM_RETRY_BASE_MS: '100', TOOLGATE_UPSTREAM_MAX_FAST_RETRIES: '2' },
    });
  });
  after(async () => {
    await t?.stop();
  });

  const count = async () => (await t.owner.get('/api/v1/servers?page_size=100')).body.total as number;

  describe('POST /api/v1/servers', () => {
    it('registers a stdio server: 201, secrets only by name, stored sealed', async () => {
      const body = {
        name: 'secret-holder',
        description: 'holds secrets',
        transport: 'stdio',
        ...fixtureStdio(),
        env: { FIXTURE_PLAIN: 'visible' },
        secret_env: { FIXTURE_SECRET: 'canary-env-3f9a1c' },
        enabled: false,
      };
      const res = await t.owner.post('/api/v1/servers', body);
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ name: 'secret-holder', transport: 'stdio', enabled: false, status: 'disabled', url: null });
      expect(res.body.env).to.deep.equal({ FIXTURE_PLAIN: 'visible' });
      expect(res.body.secret_env_keys).to.deep.equal(['FIXTURE_SECRET']);
      expect(res.body.header_names).to.deep.equal([]);
      expect(res.body.call_timeout_ms).to.equal(60000);
      expect(res.body.health_check_interval_seconds).to.equal(60);
      expect(res.text).not.to.include('canary-env-3f9a1c');
      const row = await t.server.services.db.knex('mcp_servers').where({ id: res.body.id }).first();
      expect(row.secret_env_sealed).to.be.a('string').and.not.include('canary-env-3f9a1c');
      expect(JSON.parse(t.server.services.secrets.open(row.secret_env_sealed))).to.deep.equal({ FIXTURE_SECRET: 'canary-env-3f9a1c' });
      const got = await t.owner.get(`/api/v1/servers/${res.body.id}`);
      expect(got.text).not.to.include('canary-env-3f9a1c');
    });

    it('registers an HTTP server: header values are sealed and never returned', async () => {
      const res = await t.owner.post('/api/v1/servers', {
        name: 'http-headers',
        transport: 'streamable_http',
        url: DEAD_URL,
        headers: { Authorization: 'Bearer canary-hdr-77aa', 'X-Fixture': 'canary-hdr-2' },
        enabled: false,
      });
      expect(res.status).to.equal(201);
      expect(res.body.header_names).to.deep.equal(['Authorization', 'X-Fixture']);
      expect(res.body).to.include({ command: null, cwd: null, url: DEAD_URL });
      expect(res.text).not.to.include('canary-hdr');
      const row = await t.server.services.db.knex('mcp_servers').where({ id: res.body.id }).first();
      expect(row.headers_sealed).not.to.include('canary-hdr');
    });

    const bad: [string, Record<string, unknown>, string][] = [
      ['an unknown transport', { name: 'x1', transport: 'websocket', url: 'http://127.0.0.1:1/' }, 'transport'],
      ['stdio without command', { name: 'x2', transport: 'stdio' }, 'command'],
      ['streamable_http without url', { name: 'x3', transport: 'streamable_http' }, 'url'],
      ['sse without url', { name: 'x3b', transport: 'sse' }, 'url'],
      ['a non-http(s) url', { name: 'x4', transport: 'streamable_http', url: 'file:///etc/passwd' }, 'url'],
      ['a javascript: url', { name: 'x4b', transport: 'sse', url: 'javascript:alert(1)' }, 'url'],
      [
        'an invalid header name',
        { name: 'x5', transport: 'streamable_http', url: 'http://127.0.0.1:1/', headers: { 'Bad Header': 'v' } },
        'headers',
      ],
      [
        'a header name with a colon',
        { name: 'x5b', transport: 'streamable_http', url: 'http://127.0.0.1:1/', headers: { 'a:b': 'v' } },
        'headers',
      ],
      [
        'a reserved header name',
        { name: 'x5c', transport: 'streamable_http', url: 'http://127.0.0.1:1/', headers: { 'Mcp-Session-Id': 'v' } },
        'headers',
      ],
      [
        'a header value with a newline',
        { name: 'x5d', transport: 'streamable_http', url: 'http://127.0.0.1:1/', headers: { 'X-A': 'a\r\nb: c' } },
        'headers',
      ],
      ['an oversized name', { name: 'n'.repeat(256), transport: 'stdio', command: 'node' }, 'name'],
      ['an oversized command', { name: 'x6', transport: 'stdio', command: 'c'.repeat(4097) }, 'command'],
      ['an oversized url', { name: 'x7', transport: 'sse', url: `http://127.0.0.1/${'a'.repeat(2100)}` }, 'url'],
      ['too many args', { name: 'x8', transport: 'stdio', command: 'node', args: Array.from({ length: 257 }, () => 'a') }, 'args'],
      ['an invalid env name', { name: 'x9', transport: 'stdio', command: 'node', env: { '1BAD': 'v' } }, 'env'],
      [
        'an oversized secret value',
        { name: 'x10', transport: 'stdio', command: 'node', secret_env: { S: 's'.repeat(32769) } },
        'secret_env',
      ],
      ['url on a stdio server', { name: 'x11', transport: 'stdio', command: 'node', url: 'http://127.0.0.1:1/' }, 'url'],
      ['command on an HTTP server', { name: 'x12', transport: 'streamable_http', url: 'http://127.0.0.1:1/', command: 'node' }, 'command'],
      ['an invalid name', { name: '-starts-with-dash', transport: 'stdio', command: 'node' }, 'name'],
      ['a call timeout out of range', { name: 'x13', transport: 'stdio', command: 'node', call_timeout_ms: 5 }, 'call_timeout_ms'],
      ['an unknown field', { name: 'x14', transport: 'stdio', command: 'node', shell: true }, ''],
    ];
    for (const [what, body, field] of bad) {
      it(`answers 422 for ${what}, and stores nothing`, async () => {
        const before = await count();
        const res = await t.owner.post('/api/v1/servers', body);
        expect(res.status).to.equal(422);
        expect(res.body.detail).to.be.an('array').with.length.greaterThan(0);
        const locs = (res.body.detail as { loc: unknown[] }[]).map((d) => d.loc.join('.'));
        if (field)
          expect(
            locs.some((l) => l.startsWith(`body.${field}`) || l === 'body'),
            locs.join(' | '),
          ).to.equal(true);
        expect(res.text).not.to.include('a\r\nb');
        expect(await count()).to.equal(before);
      });
    }

    it('answers 409 for a name taken (case-insensitive), and stores nothing', async () => {
      await register(t.owner, { name: 'Dup-Name', transport: 'stdio', command: 'node', enabled: false });
      const before = await count();
      const res = await t.owner.post('/api/v1/servers', { name: 'dup-name', transport: 'stdio', command: 'node', enabled: false });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('server_name_taken');
      expect(await count()).to.equal(before);
    });

    it('answers 401 without a credential', async () => {
      const res = await t.anon.post('/api/v1/servers', { name: 'anon', transport: 'stdio', command: 'node' });
      expect(res.status).to.equal(401);
    });
  });

  describe('GET /api/v1/servers', () => {
    it('pages by name and searches name or description', async () => {
      for (const n of ['list-a', 'list-b', 'list-c'])
        await register(t.owner, { name: n, description: `desc ${n} zebra`, transport: 'stdio', command: 'node', enabled: false });
      const page1 = await t.owner.get('/api/v1/servers?search=list-&page_size=2');
      expect(page1.status).to.equal(200);
      expect(page1.body.total).to.equal(3);
      expect(page1.body.items.map((s: any) => s.name)).to.deep.equal(['list-a', 'list-b']);
      const page2 = await t.owner.get('/api/v1/servers?search=list-&page_size=2&page=2');
      expect(page2.body.items.map((s: any) => s.name)).to.deep.equal(['list-c']);
      const byDesc = await t.owner.get('/api/v1/servers?search=ZEBRA');
      expect(byDesc.body.total).to.equal(3);
      const pct = await t.owner.get('/api/v1/servers?search=%25');
      expect(pct.body.total).to.equal(0);
    });

    it('filters by status', async () => {
      const res = await t.owner.get('/api/v1/servers?status=disabled&page_size=100');
      expect(res.status).to.equal(200);
      expect(res.body.items.length).to.be.greaterThan(0);
      for (const s of res.body.items) expect(s.status).to.equal('disabled');
    });
  });

  describe('GET, PATCH, DELETE /api/v1/servers/{server_id}', () => {
    it('answers 404 for an unknown server', async () => {
      const id = randomUUID();
      expect((await t.owner.get(`/api/v1/servers/${id}`)).status).to.equal(404);
      expect((await t.owner.patch(`/api/v1/servers/${id}`, { description: 'x' })).status).to.equal(404);
      expect((await t.owner.delete(`/api/v1/servers/${id}`)).status).to.equal(404);
      expect((await t.owner.post(`/api/v1/servers/${id}/enable`)).status).to.equal(404);
      expect((await t.owner.get(`/api/v1/servers/${id}/tools`)).status).to.equal(404);
      expect((await t.owner.get(`/api/v1/servers/${id}/resources`)).status).to.equal(404);
      expect((await t.owner.get(`/api/v1/servers/${id}/prompts`)).status).to.equal(404);
    });

    it('updates only supplied fields; env, secret_env and headers are merge patches', async () => {
      const s = await register(t.owner, {
        name: 'patch-me',
        transport: 'stdio',
        command: 'node',
        env: { A: '1', B: '2' },
        secret_env: { S1: 'canary-s1-9d', S2: 'x' },
        enabled: false,
      });
      const res = await t.owner.patch(`/api/v1/servers/${s.id}`, {
        description: 'now described',
        env: { A: null, C: '3' },
        secret_env: { S2: null, S3: 'canary-s3-9d' },
      });
      expect(res.status).to.equal(200);
      expect(res.body.description).to.equal('now described');
      expect(res.body.env).to.deep.equal({ B: '2', C: '3' });
      expect(res.body.secret_env_keys).to.deep.equal(['S1', 'S3']);
      expect(res.body.command).to.equal('node');
      expect(res.text).not.to.include('canary');
      const row = await t.server.services.db.knex('mcp_servers').where({ id: s.id }).first();
      expect(JSON.parse(t.server.services.secrets.open(row.secret_env_sealed))).to.deep.equal({ S1: 'canary-s1-9d', S3: 'canary-s3-9d' });
    });

    it('switches transport, clearing the other transport fields; answers 422 when the result lacks url', async () => {
      const s = await register(t.owner, { name: 'switcher', transport: 'stdio', command: 'node', args: ['a'], enabled: false });
      const missing = await t.owner.patch(`/api/v1/servers/${s.id}`, { transport: 'sse' });
      expect(missing.status).to.equal(422);
      expect(missing.body.detail[0].loc).to.deep.equal(['body', 'url']);
      const wrong = await t.owner.patch(`/api/v1/servers/${s.id}`, { transport: 'sse', url: 'http://127.0.0.1:1/sse', command: 'node' });
      expect(wrong.status).to.equal(422);
      const unchanged = await t.owner.get(`/api/v1/servers/${s.id}`);
      expect(unchanged.body).to.include({ transport: 'stdio', command: 'node' });
      const ok = await t.owner.patch(`/api/v1/servers/${s.id}`, {
        transport: 'sse',
        url: 'http://127.0.0.1:1/sse',
        headers: { 'X-K': 'v' },
      });
      expect(ok.status).to.equal(200);
      expect(ok.body).to.include({ transport: 'sse', url: 'http://127.0.0.1:1/sse', command: null, cwd: null });
      expect(ok.body.args).to.deep.equal([]);
      expect(ok.body.header_names).to.deep.equal(['X-K']);
      const bad = await t.owner.patch(`/api/v1/servers/${s.id}`, { url: 'ftp://127.0.0.1/' });
      expect(bad.status).to.equal(422);
    });

    it('answers 409 when renaming onto a taken name', async () => {
      await register(t.owner, { name: 'rename-target', transport: 'stdio', command: 'node', enabled: false });
      const s = await register(t.owner, { name: 'rename-source', transport: 'stdio', command: 'node', enabled: false });
      const res = await t.owner.patch(`/api/v1/servers/${s.id}`, { name: 'RENAME-TARGET' });
      expect(res.status).to.equal(409);
      expect((await t.owner.get(`/api/v1/servers/${s.id}`)).body.name).to.equal('rename-source');
    });

    it('deletes a server (204) and forgets it in the catalog', async () => {
      const s = await register(t.owner, { name: 'delete-me', transport: 'stdio', command: 'node', enabled: false });
      expect(t.server.services.catalog.serverState(s.id)).to.include({ name: 'delete-me', enabled: false });
      const res = await t.owner.delete(`/api/v1/servers/${s.id}`);
      expect(res.status).to.equal(204);
      expect((await t.owner.get(`/api/v1/servers/${s.id}`)).status).to.equal(404);
      expect(t.server.services.catalog.serverState(s.id)).to.equal(undefined);
    });
  });

  describe('connection state', () => {
    it('an unreachable URL ends in status error with the reason, retried a bounded number of times', async () => {
      const s = await register(t.owner, { name: 'unreachable', transport: 'streamable_http', url: DEAD_URL });
      expect(s.status).to.be.oneOf(['connecting', 'error']);
      const pool = t.server.services.pool;
      // MAX_FAST_RETRIES=2: the first attempt and two retries, then only once per health-check interval (60 s).
      const body = await waitConnectedOrError(t, s.id);
      expect(body.status).to.equal('error');
      expect(body.last_error).to.match(/connection refused/);
      await waitForAttempts(() => pool.state(s.id)?.attempts ?? 0, 3);
      await new Promise((r) => setTimeout(r, 1500));
      expect(pool.state(s.id)?.attempts).to.equal(3);
      expect((await t.anon.get('/health')).status).to.equal(200);
    });

    it('refresh answers 409 on a disabled server', async () => {
      const s = await register(t.owner, { name: 'refresh-disabled', transport: 'stdio', command: 'node', enabled: false });
      const res = await t.owner.post(`/api/v1/servers/${s.id}/refresh`);
      expect(res.status).to.equal(409);
    });

    it('a stdio command that does not exist ends in status error', async () => {
      const s = await register(t.owner, { name: 'no-such-command', transport: 'stdio', command: '/nonexistent/toolgate-test-binary' });
      const body = await waitConnectedOrError(t, s.id);
      expect(body.status).to.equal('error');
      expect(body.last_error).to.be.a('string').with.length.greaterThan(0);
      await t.owner.post(`/api/v1/servers/${s.id}/disable`);
    });
  });

  describe('PATCH /api/v1/servers/{server_id}/tool-selection', () => {
    let a: any;
    let b: any;
    before(async () => {
      a = await register(t.owner, { name: 'sel-a', transport: 'stdio', ...fixtureStdio() });
      b = await register(t.owner, { name: 'sel-b', transport: 'stdio', ...fixtureStdio() });
      await waitConnected(t.owner, a.id, 10);
      await waitConnected(t.owner, b.id, 10);
    });
    after(async () => {
      await t.owner.delete(`/api/v1/servers/${a.id}`);
      await t.owner.delete(`/api/v1/servers/${b.id}`);
    });

    const toolsOf = async (id: string) => (await t.owner.get(`/api/v1/servers/${id}/tools?page_size=100`)).body.items as any[];

    it('disables tools: updated counts only real changes; they vanish from services.catalog consumers', async () => {
      const tools = await toolsOf(a.id);
      const echo = tools.find((x) => x.name === 'echo');
      const sleep = tools.find((x) => x.name === 'sleep');
      expect(echo).to.include({ enabled: true, available: true });
      const first = await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: [echo.id, sleep.id], enabled: false });
      expect(first.status).to.equal(200);
      expect(first.body).to.deep.equal({ updated: 2 });
      const again = await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: [echo.id], enabled: false });
      expect(again.body).to.deep.equal({ updated: 0 });
      const catalog = t.server.services.catalog;
      expect(catalog.tool(echo.id)?.enabled).to.equal(false);
      const served = catalog.toolsOfServer(a.id).filter((x) => x.enabled);
      expect(served.map((x) => x.name)).not.to.include('echo');
      expect((await toolsOf(a.id)).find((x) => x.id === echo.id).enabled).to.equal(false);
      const onlyDisabled = await t.owner.get(`/api/v1/tools?server_id=${a.id}&enabled=false`);
      expect(onlyDisabled.body.items.map((x: any) => x.name).sort()).to.deep.equal(['echo', 'sleep']);
      const back = await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: [echo.id, sleep.id], enabled: true });
      expect(back.body).to.deep.equal({ updated: 2 });
      expect(catalog.tool(echo.id)?.enabled).to.equal(true);
    });

    it('answers 400 and changes nothing when an id is unknown or belongs to another server', async () => {
      const echoA = (await toolsOf(a.id)).find((x) => x.name === 'echo');
      const echoB = (await toolsOf(b.id)).find((x) => x.name === 'echo');
      const version = t.server.services.catalog.version;
      const foreign = await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: [echoA.id, echoB.id], enabled: false });
      expect(foreign.status).to.equal(400);
      expect(foreign.body.code).to.equal('unknown_tool_ids');
      expect(foreign.body.detail).to.include(echoB.id);
      const unknown = await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: [echoA.id, randomUUID()], enabled: false });
      expect(unknown.status).to.equal(400);
      expect((await toolsOf(a.id)).find((x) => x.id === echoA.id).enabled).to.equal(true);
      expect(t.server.services.catalog.tool(echoA.id)?.enabled).to.equal(true);
      expect(t.server.services.catalog.version).to.equal(version);
    });

    it('answers 422 for an empty or malformed list, 404 for an unknown server', async () => {
      expect((await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: [], enabled: true })).status).to.equal(422);
      expect((await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: ['nope'], enabled: true })).status).to.equal(422);
      expect((await t.owner.patch(`/api/v1/servers/${a.id}/tool-selection`, { tool_ids: [randomUUID()] })).status).to.equal(422);
      expect(
        (await t.owner.patch(`/api/v1/servers/${randomUUID()}/tool-selection`, { tool_ids: [randomUUID()], enabled: true })).status,
      ).to.equal(404);
    });

    it('GET /api/v1/tools lists every server’s tools by server name then tool name, with filters', async () => {
      const res = await t.owner.get('/api/v1/tools?search=echo&page_size=100');
      expect(res.status).to.equal(200);
      const names = res.body.items.map((x: any) => `${x.server_name}/${x.name}`);
      expect(names).to.include.members(['sel-a/echo', 'sel-b/echo']);
      expect(names.indexOf('sel-a/echo')).to.be.lessThan(names.indexOf('sel-b/echo'));
      const one = await t.owner.get(`/api/v1/tools?server_id=${b.id}&page_size=5`);
      expect(one.body.items).to.have.length(5);
      expect(one.body.total).to.be.greaterThan(5);
      for (const x of one.body.items) expect(x.server_id).to.equal(b.id);
      const sorted = [...one.body.items.map((x: any) => x.name)].sort();
      expect(one.body.items.map((x: any) => x.name)).to.deep.equal(sorted);
    });
  });

  describe('roles', () => {
    it('members may list servers and tools; only admins and owners change them or see a server’s catalog', async () => {
      const s = t.server.services;
      const user = await s.stores.users.insert({ id: randomUUID(), email: 'member@example.com', name: 'Member', role: 'member' });
      const { key } = await s.apiKeys.issue(user.id, { name: 'member key' });
      const member = t.owner.as(key);
      const any = (await t.owner.get('/api/v1/servers?page_size=1')).body.items[0];
      expect((await member.get('/api/v1/servers')).status).to.equal(200);
      expect((await member.get(`/api/v1/servers/${any.id}`)).status).to.equal(200);
      expect((await member.get('/api/v1/tools')).status).to.equal(200);
      expect((await member.post('/api/v1/servers', { name: 'by-member', transport: 'stdio', command: 'node' })).status).to.equal(403);
      expect((await member.patch(`/api/v1/servers/${any.id}`, { description: 'x' })).status).to.equal(403);
      expect((await member.delete(`/api/v1/servers/${any.id}`)).status).to.equal(403);
      expect((await member.post(`/api/v1/servers/${any.id}/disable`)).status).to.equal(403);
      expect((await member.get(`/api/v1/servers/${any.id}/tools`)).status).to.equal(403);
      expect(
        (await member.patch(`/api/v1/servers/${any.id}/tool-selection`, { tool_ids: [randomUUID()], enabled: false })).status,
      ).to.equal(403);
      expect((await t.owner.get(`/api/v1/servers/${any.id}`)).body.description).not.to.equal('x');
    });
  });

  describe('secrets in logs', () => {
    it('never logs a secret value', () => {
      const all = capturedLogs.join('');
      expect(all).to.include('server registered');
      for (const canary of ['canary-env-3f9a1c', 'canary-hdr-77aa', 'canary-s1-9d', 'canary-s3-9d']) expect(all).not.to.include(canary);
    });
  });
});

async function waitConnectedOrError(t: TestServer, id: string): Promise<any> {
  const deadline = Date.now() + 20000;
  for (;;) {
    const res = await t.owner.get(`/api/v1/servers/${id}`);
    if (res.body.status === 'error' || res.body.status === 'connected') return res.body;
    if (Date.now() > deadline) throw new Error(`server ${id} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitForAttempts(read: () => number, n: number): Promise<void> {
  const deadline = Date.now() + 20000;
  while (read() < n) {
    if (Date.now() > deadline) throw new Error(`only ${read()} attempts`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
