import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { FaultProxy } from '../../helpers/fault-proxy.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { RpcCode } from '../../../src/mcp/protocol.js';
import { hashBundleKey } from '../../../src/live/bundles-registry.js';
import { ApiClient } from '../../helpers/api-client.js';
import { createUser } from '../../helpers/identity.js';
import { mcpFetch, modernRequest, responseOf } from '../../helpers/mcp-http.js';
import { LOOPBACK_UPSTREAMS, startTestServer, TEST_DATABASE_URL, type TestServer } from '../../helpers/test-server.js';

/**
 * Scale-out of the MCP endpoints: two real instances (startServer) on one PostgreSQL schema and
 * one Redis, as behind a load balancer, and a client that alternates between them.
 */
const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const VERSION = '2025-11-25';
const CAP = 3;

let nextId = 1;

function initBody() {
  return {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: { roots: {} }, clientInfo: { name: 'lb-client', version: '1' } },
  };
}

/** Opens a session on `endpoint`; returns its id. */
async function initialize(endpoint: string): Promise<string> {
  const reply = await mcpFetch(endpoint, { body: initBody() });
  expect(reply.status).to.equal(200);
  const id = reply.headers.get('mcp-session-id');
  expect(id).to.be.a('string');
  return id!;
}

const sessionHeaders = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': VERSION });

function notify(endpoint: string, session: string, method: string) {
  return mcpFetch(endpoint, { body: { jsonrpc: '2.0', method }, headers: sessionHeaders(session), unchecked: true });
}

function request(endpoint: string, session: string, method: string, params: Record<string, unknown> = {}) {
  return mcpFetch(endpoint, { body: { jsonrpc: '2.0', id: nextId++, method, params }, headers: sessionHeaders(session), unchecked: true });
}

/** An open GET stream, read in the background as it arrives. */
async function openStream(endpoint: string, session: string) {
  const controller = new AbortController();
  const res = await fetch(endpoint, { headers: { accept: 'text/event-stream', ...sessionHeaders(session) }, signal: controller.signal });
  const reader = res.body!.getReader();
  const state = { text: '', ended: false };
  let wake: () => void = () => undefined;
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        state.text += Buffer.from(value).toString('utf8');
        wake();
      }
    } catch {
      // aborted by close()
    }
    state.ended = true;
    wake();
  })();
  const waitFor = async (ok: () => boolean) => {
    while (!ok() && !state.ended) await new Promise<void>((r) => (wake = r));
  };
  return {
    res,
    /** Everything read so far. */
    text: () => state.text,
    /** Waits until `needle` was seen `count` times (or the stream ended); returns the text so far. */
    async until(needle: string, count = 1): Promise<string> {
      await waitFor(() => state.text.split(needle).length - 1 >= count);
      return state.text;
    },
    /** Waits until the server ends the stream. */
    end: () => waitFor(() => false),
    close: () => controller.abort(),
  };
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe('scale-out: two instances, one PostgreSQL, one Redis, a client alternating between them', function () {
  this.timeout(180000);
  let a: TestServer;
  let b: TestServer;
  let fixture: FixtureBundle;
  let onA: string;
  let onB: string;

  before(async () => {
    const schema = `tg_scale_${process.pid}_${Date.now() % 100000}`;
    const env = {
      ...LOOPBACK_UPSTREAMS,
      DATABASE_URL: PG_URL,
      TOOLGATE_DB_SCHEMA: schema,
      REDIS_URL,
      // The instances share one master key (secrets sealed by one are opened by the other).
      TOOLGATE_SECRET_KEY: randomBytes(32).toString('hex'),
      TOOLGATE_MCP_MAX_SESSIONS_PER_KEY: String(CAP),
    };
    a = await startTestServer({ env });
    fixture = await setupFixtureBundle(a.owner, a.url);
    // B starts on the same schema (it connects the same upstream from the catalog, as a new replica does).
    b = await startTestServer({ env, noBootstrap: true, keepData: true });
    for (const s of [a, b]) {
      await (s.server.services.bus as unknown as { ready?: () => Promise<void> }).ready?.();
      const shared = (s.server.mcp.core.sessions as unknown as { shared?: { ready?: () => Promise<void> } }).shared;
      await shared?.ready?.();
    }
    onA = fixture.endpoint;
    onB = `${b.url}/mcp/bundle/${fixture.bundleKey}`;
    // B's own connection to the fixture upstream.
    await eventually(
      async () => b.server.services.catalog.serverState(fixture.serverId)?.connected === true,
      'B connected to the upstream',
    );
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('serves a session opened on A on B; B’s GET stream hears of an admin change made on A; DELETE on A ends it on B', async () => {
    const session = await initialize(onA);
    expect((await notify(onB, session, 'notifications/initialized')).status).to.equal(202);
    // tools/call on B with A's session.
    const called = responseOf(await request(onB, session, 'tools/call', { name: 'test_simple_text', arguments: {} }));
    expect(called.error, JSON.stringify(called.error)).to.equal(undefined);
    expect(called.result.content[0].text).to.equal('This is a simple text response for testing.');
    // Alternating: A still serves it, B again.
    expect(responseOf(await request(onA, session, 'tools/list')).result.tools.length).to.be.greaterThan(1);
    expect(responseOf(await request(onB, session, 'ping')).result).to.deep.equal({});

    // The GET stream on B, and an admin change through A: the bundle loses a tool.
    const stream = await openStream(onB, session);
    expect(stream.res.status).to.equal(200);
    await stream.until(': stream open');
    // B's own upstream sync may announce a change of its own: let it settle, then count.
    await new Promise((r) => setTimeout(r, 1000));
    const LIST_CHANGED = '"method":"notifications/tools/list_changed"';
    const before = stream.text().split(LIST_CHANGED).length - 1;
    const removed = await a.owner.delete(`/api/v1/bundles/${fixture.bundleId}/tools/${fixture.toolIds.test_image_content}`);
    expect(removed.status).to.equal(204);
    await stream.until(LIST_CHANGED, before + 1);
    // The announcement came with B's registry updated: its tools/list no longer has the tool.
    const names = (responseOf(await request(onB, session, 'tools/list')).result.tools as { name: string }[]).map((t) => t.name);
    expect(names).to.include('test_simple_text');
    expect(names).to.not.include('test_image_content');

    // DELETE on A ends the session everywhere: B's stream ends and B answers 404.
    const deleted = await mcpFetch(onA, { method: 'DELETE', headers: sessionHeaders(session) });
    expect(deleted.status).to.equal(204);
    await stream.end();
    const after = await request(onB, session, 'ping');
    expect(after.status).to.equal(404);
    expect(after.json.error.code).to.equal(RpcCode.SessionNotFound);
    expect((await request(onA, session, 'ping')).status).to.equal(404);
  });

  it('keeps per-session state across instances: the client capabilities and notifications/initialized made on A', async () => {
    const session = await initialize(onA);
    expect((await notify(onA, session, 'notifications/initialized')).status).to.equal(202);
    // Loaded on B from the shared record.
    expect((await request(onB, session, 'ping')).status).to.equal(200);
    const onBSession = b.server.mcp.core.sessions.get(session)!;
    expect(onBSession.initialized).to.equal(true);
    expect(onBSession.clientCapabilities).to.deep.equal({ roots: {} });
    expect(onBSession.scope).to.equal(fixture.bundleId);
  });

  it('answers 404 for an unknown session id on either instance', async () => {
    const bogus = randomBytes(24).toString('base64url');
    for (const endpoint of [onA, onB]) {
      const reply = await request(endpoint, bogus, 'ping');
      expect(reply.status).to.equal(404);
      expect(reply.json.error.code).to.equal(RpcCode.SessionNotFound);
    }
  });

  it('does not serve a session to another bundle key on the other instance', async () => {
    const other = await a.owner.post('/api/v1/bundles', { name: `other-${Date.now()}`, tools: [] });
    expect(other.status).to.equal(201);
    const session = await initialize(onA);
    const otherOnB = `${b.url}/mcp/bundle/${other.body.bundle_key}`;
    await eventually(
      async () => (await mcpFetch(otherOnB, { body: initBody(), unchecked: true })).status === 200,
      'B knows the new bundle',
    );
    expect((await request(otherOnB, session, 'ping')).status).to.equal(404);
  });

  it('serves a bundle written to the database but not announced yet on either instance (read by key hash); an unknown key stays 404', async () => {
    // Written as a write of A looks before its change message reaches anyone: in the database only.
    const key = `tg_bnd_${randomBytes(24).toString('base64url')}`;
    const id = randomUUID();
    await a.server.services.stores.bundles.insert({
      id,
      name: `unannounced-${Date.now()}`,
      description: null,
      agent_id: null,
      key_hash: hashBundleKey(key),
      key_sealed: a.server.services.secrets.seal(key),
      created_by: null,
    });
    await a.server.services.stores.bundles.insertTools([
      {
        bundle_id: id,
        tool_id: fixture.toolIds.test_simple_text!,
        server_id: fixture.serverId,
        server_name: a.server.services.catalog.serverState(fixture.serverId)!.name,
        tool_name: 'test_simple_text',
        display_order: 0,
        override: {},
      },
    ]);
    expect(b.server.services.bundleRegistry.byKey(key)).to.equal(undefined);
    const onBNew = `${b.url}/mcp/bundle/${key}`;
    const session = await initialize(onBNew);
    const called = responseOf(await request(onBNew, session, 'tools/call', { name: 'test_simple_text', arguments: {} }));
    expect(called.error, JSON.stringify(called.error)).to.equal(undefined);
    expect(b.server.services.bundleRegistry.byKey(key)?.id).to.equal(id);
    const info = await fetch(`${a.url}/mcp/bundle/${key}/info`);
    expect(info.status).to.equal(200);
    expect(((await info.json()) as { tool_count: number }).tool_count).to.equal(1);

    const unknown = `tg_bnd_${randomBytes(24).toString('base64url')}`;
    for (const s of [a, b]) {
      const reply = await mcpFetch(`${s.url}/mcp/bundle/${unknown}`, { body: initBody(), unchecked: true });
      expect(reply.status).to.equal(404);
    }
  });

  it('serves a change made on A in B’s very next request, however late B hears of it: a new bundle and settings on /mcp/gateway, a revoked key everywhere', async () => {
    const user = await createUser(a, 'admin');
    const gatewayList = async () => {
      const { headers, body } = modernRequest('tools/list');
      const reply = await mcpFetch(`${b.url}/mcp/gateway`, {
        body,
        headers: { ...headers, authorization: `Bearer ${user.key}` },
        unchecked: true,
      });
      return { status: reply.status, names: (reply.json?.result?.tools ?? []).map((x: { name: string }) => x.name) as string[] };
    };
    // B's view and the user's settings are cached before the changes.
    const before = await gatewayList();
    expect(before.status).to.equal(200);
    const renamed = `made_on_a_${randomBytes(4).toString('hex')}`;
    expect(before.names).to.not.include(renamed);
    // From here B hears of every change 300 ms late (its listeners run then).
    const busB = b.server.services.bus as unknown as { deliver(m: unknown): Promise<unknown>[] };
    const deliver = busB.deliver;
    busB.deliver = function (this: unknown, m: unknown) {
      return [new Promise((r) => setTimeout(r, 300)).then(() => Promise.all(deliver.call(this, m)))];
    };
    try {
      const created = await user.client.post('/api/v1/bundles', {
        name: `late-${renamed}`,
        tools: [{ tool_id: fixture.toolIds.test_simple_text, override: { name: renamed } }],
      });
      expect(created.status).to.equal(201);
      expect((await gatewayList()).names).to.include(renamed);

      expect((await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' })).status).to.equal(200);
      expect((await gatewayList()).names).to.deep.equal(['search', 'execute']);

      const onB = new ApiClient(b.url, user.key);
      expect((await onB.get('/api/v1/users/me')).status).to.equal(200);
      expect((await user.client.delete(`/api/v1/users/me/api-keys/${user.keyId}`)).status).to.equal(204);
      expect((await onB.get('/api/v1/users/me', { unchecked: true })).status).to.equal(401);
      expect((await gatewayList()).status).to.equal(401);
    } finally {
      busB.deliver = deliver;
    }
  });

  it('connects B to a server registered on A after B started, and B serves its bundle; disabling it on A disables it on B', async () => {
    const late = await setupFixtureBundle(a.owner, a.url, { tools: ['test_simple_text'] });
    await eventually(
      async () =>
        b.server.services.catalog.serverState(late.serverId)?.connected === true &&
        b.server.services.catalog.tool(late.toolIds.test_simple_text!) !== undefined &&
        // The bundle reaches B by its own change message, which may come after the catalog's.
        b.server.services.bundleRegistry.byKey(late.bundleKey) !== undefined,
      'B connected to the new upstream, its tools in B’s catalog, the bundle in B’s registry',
    );
    const lateOnB = `${b.url}/mcp/bundle/${late.bundleKey}`;
    const session = await initialize(late.endpoint);
    const called = responseOf(await request(lateOnB, session, 'tools/call', { name: 'test_simple_text', arguments: {} }));
    expect(called.error, JSON.stringify(called.error)).to.equal(undefined);
    expect(called.result.content[0].text).to.equal('This is a simple text response for testing.');
    expect((await a.owner.post(`/api/v1/servers/${late.serverId}/disable`, {})).status).to.equal(200);
    await eventually(async () => b.server.services.catalog.serverState(late.serverId)?.enabled === false, 'B disabled the server');
    const refused = responseOf(await request(lateOnB, session, 'tools/call', { name: 'test_simple_text', arguments: {} }));
    expect(refused.error ?? refused.result?.isError).to.not.equal(undefined);
  });

  it(`caps sessions per bundle key (${CAP}): the least recently used idle one is evicted, everywhere, and its client gets 404`, async () => {
    // Start from an empty scope on A (earlier tests left sessions there).
    a.server.mcp.core.sessions.endForScope(fixture.bundleId);
    const first = await initialize(onA);
    const second = await initialize(onA);
    const third = await initialize(onA);
    // `first` holds a GET stream (not idle); `second` is the least recently used idle one.
    const stream = await openStream(onA, first);
    await stream.until(': stream open');
    await new Promise((r) => setTimeout(r, 5));
    expect((await request(onA, third, 'ping')).status).to.equal(200);
    // B has loaded `second` too (shared): the eviction on A must reach it.
    expect((await request(onB, second, 'ping')).status).to.equal(200);
    const fourth = await initialize(onA);
    expect(a.server.mcp.core.sessions.countForScope(fixture.bundleId)).to.equal(CAP);
    for (const endpoint of [onA, onB]) {
      const evicted = await request(endpoint, second, 'ping');
      expect(evicted.status).to.equal(404);
      expect(evicted.json.error.code).to.equal(RpcCode.SessionNotFound);
    }
    for (const kept of [first, third, fourth]) expect((await request(onA, kept, 'ping')).status).to.equal(200);
    // The evicted client re-initialises and goes on.
    const again = await initialize(onA);
    expect((await request(onB, again, 'ping')).status).to.equal(200);
    stream.close();
  });
});

describe('session cap on a single instance (no Redis)', function () {
  this.timeout(180000);
  let t: TestServer;
  let endpoint: string;

  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_MCP_MAX_SESSIONS_PER_KEY: '2' } });
    endpoint = (await setupFixtureBundle(t.owner, t.url)).endpoint;
  });
  after(async () => t?.stop());

  it('evicts the least recently used idle session of a key: its client gets 404, re-initialises and goes on', async () => {
    const first = await initialize(endpoint);
    const second = await initialize(endpoint);
    expect((await request(endpoint, first, 'ping')).status).to.equal(200);
    // `second` is now the least recently used.
    const third = await initialize(endpoint);
    const evicted = await request(endpoint, second, 'ping');
    expect(evicted.status).to.equal(404);
    expect(evicted.json.error.code).to.equal(RpcCode.SessionNotFound);
    for (const kept of [first, third]) expect((await request(endpoint, kept, 'ping')).status).to.equal(200);
    const again = await initialize(endpoint);
    expect((await request(endpoint, again, 'ping')).status).to.equal(200);
    expect(t.server.mcp.core.sessions.size).to.equal(2);
  });
});

describe('shared sessions while Redis swallows packets', function () {
  this.timeout(180000);
  let t: TestServer;
  let proxy: FaultProxy;
  let endpoint: string;

  before(async () => {
    const redis = new URL(REDIS_URL);
    proxy = await new FaultProxy(redis.hostname, Number(redis.port || 6379)).start();
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
    endpoint = (await setupFixtureBundle(t.owner, t.url)).endpoint;
    await (t.server.mcp.core.sessions as unknown as { shared?: { ready?: () => Promise<void> } }).shared?.ready?.();
  });
  after(async () => {
    proxy?.restore();
    await t?.stop();
    await proxy?.stop();
  });

  it('still opens and serves sessions on this instance (the store gives up on Redis after its command timeout)', async function () {
    // Without the command timeout, initialize would wait on Redis forever: this test's own timeout catches that.
    this.timeout(30000);
    proxy.blackhole();
    try {
      const session = await initialize(endpoint);
      expect((await request(endpoint, session, 'ping')).status).to.equal(200);
      expect((await request(endpoint, randomBytes(24).toString('base64url'), 'ping')).status).to.equal(404);
    } finally {
      proxy.restore();
    }
  });
});
