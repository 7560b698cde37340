import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { withResultText } from '../../../../src/domain/result-text.js';
import { AuditExportStore } from '../../../../src/stores/audit-export-store.js';
import type { ToolCallResult, UpstreamCallOptions } from '../../../../src/domain/upstream-call.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { mcpFetch, modernRequest, responseOf, type McpReply } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../../helpers/test-upstreams.js';

/**
 * Guardrails end to end, on the bundle route and on `/mcp/gateway` (and its `execute`): secrets
 * in results and arguments redacted and counted in the call record, the installation's and a
 * bundle's settings, and webhook interceptors (signed; allow, reject, rewrite; a timeout failing
 * open or closed; a receiver that refuses the signature; an address the outbound policy refuses).
 */

// Assembled from parts so the file holds no whole key-shaped literal.
const AWS_KEY = 'AKIA' + 'Q7'.repeat(8);
const GH_TOKEN = 'ghp_' + 'aB3dE5gH7j'.repeat(4).slice(0, 36);
const SECRET = 'interceptor-secret-0123456789';

/** The fixture upstream, plus `leak`: a result holding an AWS key, as an upstream sends it (with its JSON text). */
class LeakyUpstreams extends TestUpstreams {
  override async callTool(
    serverId: string,
    toolName: string,
    args: Record<string, unknown>,
    options?: UpstreamCallOptions,
  ): Promise<ToolCallResult> {
    if (toolName !== 'leak') return super.callTool(serverId, toolName, args, options);
    this.calls.push({ serverId, tool: toolName, args, aborted: false });
    const result = { content: [{ type: 'text', text: `credentials: ${AWS_KEY} (do not share)` }] };
    return withResultText(result, JSON.stringify(result));
  }
}

/** A webhook receiver that checks the signature with its own secret and answers as `reply` says. */
class Receiver {
  readonly seen: { headers: http.IncomingHttpHeaders; body: Record<string, unknown>; signed: boolean }[] = [];
  reply: (body: Record<string, unknown>) => { status?: number; json?: unknown; delayMs?: number } = () => ({ json: { action: 'allow' } });
  private server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      const ts = String(req.headers['x-toolgate-timestamp']);
      const expected = `sha256=${createHmac('sha256', SECRET).update(`${ts}.${text}`).digest('hex')}`;
      const signed = req.headers['x-toolgate-signature'] === expected;
      const body = JSON.parse(text) as Record<string, unknown>;
      this.seen.push({ headers: req.headers, body, signed });
      if (!signed) {
        res.writeHead(401).end();
        return;
      }
      const r = this.reply(body);
      const send = () => res.writeHead(r.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(r.json ?? {}));
      if (r.delayMs) setTimeout(send, r.delayMs);
      else send();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('guardrails', function () {
  this.timeout(120_000);
  let t: TestServer;
  let upstreams: LeakyUpstreams;
  let receiver: Receiver;
  let hookUrl: string;
  let admin: TestUser;
  let member: TestUser;
  let bundle: { id: string; bundle_key: string };

  async function rpc(url: string, method: string, params: Record<string, unknown> = {}, key?: string): Promise<McpReply> {
    const { headers, body } = modernRequest(method, params);
    return mcpFetch(url, { body, headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  }
  const bundleUrl = () => `${t.url}/mcp/bundle/${bundle.bundle_key}`;
  const gatewayUrl = () => `${t.url}/mcp/gateway`;
  /** Both routes: the bundle's endpoint, and the gateway for a member the bundle is shared with. */
  const routes = (): [string, string, string | undefined][] => [
    ['bundle', bundleUrl(), undefined],
    ['gateway', gatewayUrl(), member.key],
  ];
  async function call(url: string, name: string, args: Record<string, unknown>, key?: string) {
    return responseOf(await rpc(url, 'tools/call', { name, arguments: args }, key));
  }
  async function lastRecord(tool: string): Promise<Record<string, unknown>> {
    await t.server.services.callRecorder.flush();
    const row = await t.server.services.db.knex('call_records').where({ tool_name: tool }).orderBy('occurred_at', 'desc').first();
    return row as Record<string, unknown>;
  }
  async function interceptor(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
    const res = await admin.client.post('/api/v1/interceptors', { secret: SECRET, url: hookUrl, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }
  async function clearInterceptors(): Promise<void> {
    for (const i of (await admin.client.get('/api/v1/interceptors')).body.items) await admin.client.delete(`/api/v1/interceptors/${i.id}`);
    receiver.seen.length = 0;
    receiver.reply = () => ({ json: { action: 'allow' } });
  }

  before(async () => {
    receiver = new Receiver();
    hookUrl = await receiver.start();
    upstreams = new LeakyUpstreams();
    t = await startTestServer({
      start: { upstreams, callRecorder: { flushIntervalMs: 50 } },
      env: { TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000' },
    });
    admin = await createUser(t, 'admin');
    // The receiver is on loopback: allow-listed in the settings (a test below narrows the list).
    expect((await admin.client.put('/api/v1/settings/general', { outbound_allowlist: ['127.0.0.1:*'] })).status).to.equal(200);
    member = await createUser(t, 'member');
    const fixture = putFixtureServer(t.server.services.catalog, 'vault', [
      { name: 'echo', description: 'Echo the arguments back' },
      { name: 'leak', description: 'Read the deployment credentials' },
      { name: 'slow', description: 'Answer after a while' },
    ]);
    const created = await admin.client.post('/api/v1/bundles', {
      name: 'Vault',
      tools: Object.values(fixture.tools).map((tool) => ({ tool_id: tool.id })),
    });
    expect(created.status, created.text).to.equal(201);
    bundle = created.body;
    await admin.client.put(`/api/v1/bundles/${bundle.id}/shares`, {
      shares: [{ principal_type: 'user', principal_id: member.id, access: 'use' }],
    });
  });
  afterEach(async () => {
    await clearInterceptors();
    await admin.client.patch('/api/v1/guardrails', { redact_secrets: true, redact_pii: false });
    await admin.client.put(`/api/v1/bundles/${bundle.id}/guardrails`, { redact_secrets: null, redact_pii: null });
  });
  after(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  describe('redaction', () => {
    it('redacts an AWS key in a result by default on both routes and counts it in the call record', async () => {
      for (const [route, url, key] of routes()) {
        const res = await call(url, 'leak', {}, key);
        expect(res.result.content[0].text, route).to.equal('credentials: [REDACTED:aws_access_key] (do not share)');
        const record = await lastRecord('leak');
        expect(record).to.include({ status: 'ok', redactions: 1, endpoint: route });
      }
    });

    it('redacts secrets in the arguments before the upstream sees them', async () => {
      for (const [route, url, key] of routes()) {
        const res = await call(url, 'echo', { note: `use ${GH_TOKEN} please`, n: 3 }, key);
        expect(upstreams.calls.at(-1)!.args, route).to.deep.equal({ note: 'use [REDACTED:github_token] please', n: 3 });
        expect(JSON.stringify(res.result)).to.not.include(GH_TOKEN);
        expect(await lastRecord('echo')).to.include({ redactions: 1 });
      }
    });

    it("follows the installation's setting, and a bundle's override wins", async () => {
      const off = await admin.client.patch('/api/v1/guardrails', { redact_secrets: false });
      expect(off.status, off.text).to.equal(200);
      expect(off.body).to.include({ redact_secrets: false, redact_pii: false });
      expect((await call(bundleUrl(), 'leak', {})).result.content[0].text).to.include(AWS_KEY);
      expect(await lastRecord('leak')).to.include({ redactions: 0 });

      const own = await admin.client.put(`/api/v1/bundles/${bundle.id}/guardrails`, { redact_secrets: true, redact_pii: true });
      expect(own.status, own.text).to.equal(200);
      expect(own.body).to.deep.include({ redact_secrets: true, redact_pii: true, effective: { redact_secrets: true, redact_pii: true } });
      const res = await call(bundleUrl(), 'echo', { mail: 'jane.doe@example.com' });
      expect(upstreams.calls.at(-1)!.args).to.deep.equal({ mail: '[REDACTED:email]' });
      expect(res.result.content[0].text).to.not.include('jane.doe');
      expect((await call(bundleUrl(), 'leak', {})).result.content[0].text).to.not.include(AWS_KEY);

      const actions = (await t.server.services.stores.activity.recent({ limit: 20, failedOnly: false })).map((r) => r.action);
      expect(actions).to.include.members(['guardrails.update', 'bundle.guardrails.update']);
    });

    it('shows the redactions in the activity feed and the audit export', async () => {
      await call(bundleUrl(), 'leak', {});
      await t.server.services.callRecorder.flush();
      const feed = await admin.client.get('/api/v1/dashboard/activity?activity_filter=tools');
      expect(feed.status, feed.text).to.equal(200);
      const entry = feed.body.items.find((i: { target: string }) => i.target === 'vault.leak');
      expect(entry.details).to.include({ redactions: 1 });
      const exported = await new AuditExportStore(t.server.services.db.knex, { advisoryLock: false }).exclusive((s) => s.events(0, 10_000));
      const event = exported!.filter((e) => e.kind === 'tool_call' && e.target.name === 'leak').at(-1)!;
      expect(event).to.include({ redactions: 1, outcome: 'ok' });
    });
  });

  describe('interceptors', () => {
    it('sends a signed request and an allow lets the call through, recorded', async () => {
      const i = await interceptor({ name: 'Audit', phases: ['before', 'after'], failure_mode: 'closed' });
      for (const [route, url, key] of routes()) {
        receiver.seen.length = 0;
        const res = await call(url, 'echo', { q: 1 }, key);
        expect(res.result, JSON.stringify(res)).to.be.an('object');
        expect(receiver.seen.map((s) => [s.body.phase, s.signed])).to.deep.equal([
          ['before', true],
          ['after', true],
        ]);
        const before = receiver.seen[0]!.body;
        expect(before).to.deep.include({
          endpoint: route,
          bundle_id: bundle.id,
          arguments: { q: 1 },
          interceptor: { id: i.id, name: 'Audit' },
        });
        expect(before.tool).to.deep.equal({ name: 'echo', upstream_name: 'echo' });
        expect(receiver.seen[1]!.body.result).to.deep.include({ structuredContent: { args: { q: 1 } } });
        const record = await lastRecord('echo');
        expect(record.status).to.equal('ok');
        expect(record.interceptions).to.deep.equal([
          { interceptor_id: i.id, interceptor_name: 'Audit', phase: 'before', outcome: 'allow' },
          { interceptor_id: i.id, interceptor_name: 'Audit', phase: 'after', outcome: 'allow' },
        ]);
      }
    });

    it('a rejection is a -32004 naming the interceptor with its message; the upstream is not called; recorded as denied', async () => {
      const i = await interceptor({ name: 'No prod', phases: ['before'], failure_mode: 'open' });
      receiver.reply = () => ({ json: { action: 'reject', message: 'production is off limits' } });
      for (const [, url, key] of routes()) {
        const calls = upstreams.calls.length;
        const res = await call(url, 'echo', { env: 'prod' }, key);
        expect(res.error.code).to.equal(-32004);
        expect(res.error.message).to.include('No prod').and.include('production is off limits');
        expect(res.error.data).to.deep.equal({
          reason: 'interceptor_rejected',
          interceptor: { id: i.id, name: 'No prod' },
          phase: 'before',
        });
        expect(upstreams.calls.length).to.equal(calls);
        const record = await lastRecord('echo');
        expect(record.status).to.equal('denied');
        expect(record.interceptions).to.deep.equal([
          { interceptor_id: i.id, interceptor_name: 'No prod', phase: 'before', outcome: 'reject', detail: 'production is off limits' },
        ]);
      }
    });

    it("rewrites the arguments before the call and the result after it (also through the gateway's execute)", async () => {
      await interceptor({ name: 'Rewriter', phases: ['before', 'after'], failure_mode: 'closed', bundles: [bundle.id] });
      receiver.reply = (body) =>
        body.phase === 'before'
          ? { json: { action: 'rewrite', arguments: { ...(body.arguments as object), limit: 10 } } }
          : { json: { action: 'rewrite', result: { content: [{ type: 'text', text: 'rewritten' }] } } };
      for (const [, url, key] of routes()) {
        const res = await call(url, 'echo', { q: 'x' }, key);
        expect(upstreams.calls.at(-1)!.args).to.deep.equal({ q: 'x', limit: 10 });
        expect(res.result.content).to.deep.equal([{ type: 'text', text: 'rewritten' }]);
        expect(res.result).to.not.have.property('structuredContent');
        expect(((await lastRecord('echo')).interceptions as { outcome: string }[]).map((x) => x.outcome)).to.deep.equal([
          'rewrite',
          'rewrite',
        ]);
      }
      await member.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute', search_result_limit: 20 });
      try {
        const res = await call(gatewayUrl(), 'execute', { name: 'echo', arguments: { q: 'y' } }, member.key);
        expect(upstreams.calls.at(-1)!.args).to.deep.equal({ q: 'y', limit: 10 });
        expect(res.result.content).to.deep.equal([{ type: 'text', text: 'rewritten' }]);
      } finally {
        await member.client.put('/api/v1/users/me/gateway-settings', { mode: 'direct' });
      }
    });

    it('a timeout fails open (the call goes on) or closed (refused), as the interceptor says', async () => {
      receiver.reply = () => ({ json: { action: 'allow' }, delayMs: 1500 });
      const open = await interceptor({ name: 'Slow open', phases: ['before'], failure_mode: 'open', timeout_ms: 200 });
      const ok = await call(bundleUrl(), 'echo', { a: 1 });
      expect(ok.result, JSON.stringify(ok)).to.be.an('object');
      expect((await lastRecord('echo')).interceptions).to.deep.equal([
        { interceptor_id: open.id, interceptor_name: 'Slow open', phase: 'before', outcome: 'failed_open', detail: 'no answer in time' },
      ]);
      await admin.client.patch(`/api/v1/interceptors/${open.id}`, { failure_mode: 'closed' });
      for (const [, url, key] of routes()) {
        const calls = upstreams.calls.length;
        const refused = await call(url, 'echo', { a: 2 }, key);
        expect(refused.error.code).to.equal(-32004);
        expect(refused.error.message).to.include('Slow open').and.include('no answer in time').and.include('fails closed');
        expect(refused.error.data).to.deep.include({ reason: 'interceptor_failed' });
        expect(upstreams.calls.length).to.equal(calls);
        expect(await lastRecord('echo')).to.include({ status: 'denied' });
      }
    });

    it('a receiver that refuses the signature (wrong secret) counts as a failure', async () => {
      await admin.client.post('/api/v1/interceptors', {
        name: 'Wrong secret',
        url: hookUrl,
        secret: 'not-the-receivers-secret',
        phases: ['after'],
        failure_mode: 'closed',
      });
      const res = await call(bundleUrl(), 'echo', {});
      expect(receiver.seen.at(-1)!.signed).to.equal(false);
      expect(res.error.code).to.equal(-32004);
      expect(res.error.message).to.include('it answered HTTP 401');
      expect(res.error.data).to.deep.include({ reason: 'interceptor_failed', phase: 'after' });
    });

    it('an invalid decision fails as the interceptor says', async () => {
      receiver.reply = () => ({ json: { action: 'rewrite', result: { content: 'not a list' } } });
      const i = await interceptor({ name: 'Broken', phases: ['after'], failure_mode: 'open' });
      const res = await call(bundleUrl(), 'echo', { z: 1 });
      expect(res.result.structuredContent).to.deep.equal({ args: { z: 1 } });
      expect((await lastRecord('echo')).interceptions).to.deep.equal([
        {
          interceptor_id: i.id,
          interceptor_name: 'Broken',
          phase: 'after',
          outcome: 'failed_open',
          detail: 'invalid answer: a rewrite after the call must give result (a CallToolResult)',
        },
      ]);
    });

    it('an address the outbound policy refuses is a 422 when saved, and a failure when it stops being allowed', async () => {
      const saved = await admin.client.post('/api/v1/interceptors', {
        name: 'Private',
        url: 'http://10.1.2.3:8080/hook',
        secret: SECRET,
        phases: ['before'],
        failure_mode: 'open',
      });
      expect(saved.status).to.equal(422);
      expect(saved.body.detail[0].loc).to.deep.equal(['body', 'url']);

      await interceptor({ name: 'Loopback', phases: ['before'], failure_mode: 'closed' });
      const narrowed = await admin.client.put('/api/v1/settings/general', { outbound_allowlist: ['127.0.0.1:1'] });
      expect(narrowed.status, narrowed.text).to.equal(200);
      try {
        const res = await call(bundleUrl(), 'echo', {});
        expect(res.error.code).to.equal(-32004);
        expect(res.error.message).to.include('refused by the outbound-address policy');
        expect(receiver.seen).to.have.length(0);
      } finally {
        await admin.client.put('/api/v1/settings/general', { outbound_allowlist: ['127.0.0.1:*'] });
      }
    });
  });

  describe('REST', () => {
    it('creates, reads, updates and deletes an interceptor, never showing its secret, each in the activity log', async () => {
      const created = await interceptor({ name: 'Filter', phases: ['before'], failure_mode: 'open', description: 'd' });
      const got = await admin.client.get(`/api/v1/interceptors/${created.id}`);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.include({
        name: 'Filter',
        timeout_ms: 5000,
        priority: 1000,
        enabled: true,
        bundles: [],
        phases: ['before'],
      });
      expect(JSON.stringify(got.body)).to.not.include(SECRET);
      const patched = await admin.client.patch(`/api/v1/interceptors/${created.id}`, {
        enabled: false,
        secret: 'another-secret-0123456789',
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.enabled).to.equal(false);
      const sealed = await t.server.services.db.knex('guardrail_interceptors').where({ id: created.id }).first();
      expect(sealed.secret_sealed).to.not.include('another-secret');
      expect(
        (
          await admin.client.post('/api/v1/interceptors', {
            name: 'filter',
            url: hookUrl,
            secret: SECRET,
            phases: ['after'],
            failure_mode: 'open',
          })
        ).status,
      ).to.equal(409);
      expect((await admin.client.delete(`/api/v1/interceptors/${created.id}`)).status).to.equal(204);
      expect((await admin.client.get(`/api/v1/interceptors/${created.id}`)).status).to.equal(404);
      const entries = await t.server.services.stores.activity.recent({ limit: 20, failedOnly: false });
      const actions = entries.map((r) => r.action);
      expect(actions).to.include.members(['interceptor.create', 'interceptor.update', 'interceptor.delete']);
      expect(JSON.stringify(entries)).to.not.include(SECRET);
    });

    it('answers 422 for a bad body and for an unknown bundle', async () => {
      const base = { name: 'x', url: hookUrl, secret: SECRET, phases: ['before'], failure_mode: 'open' };
      expect((await admin.client.post('/api/v1/interceptors', { ...base, secret: 'short' })).status).to.equal(422);
      expect((await admin.client.post('/api/v1/interceptors', { ...base, phases: [] })).status).to.equal(422);
      expect((await admin.client.post('/api/v1/interceptors', { ...base, timeout_ms: 60_000 })).status).to.equal(422);
      expect((await admin.client.post('/api/v1/interceptors', { ...base, failure_mode: 'maybe' })).status).to.equal(422);
      const unknown = await admin.client.post('/api/v1/interceptors', { ...base, bundles: ['00000000-0000-4000-8000-000000000001'] });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.detail[0].loc).to.deep.equal(['body', 'bundles', 0]);
      expect((await admin.client.patch('/api/v1/guardrails', {})).status).to.equal(422);
    });

    it("lists a bundle's interceptors and effective settings; 404 for an unknown bundle", async () => {
      const i = await interceptor({ name: 'Scoped', phases: ['before', 'after'], failure_mode: 'open', bundles: [bundle.id] });
      const got = await admin.client.get(`/api/v1/bundles/${bundle.id}/guardrails`);
      expect(got.status, got.text).to.equal(200);
      expect(got.body).to.deep.equal({
        bundle_id: bundle.id,
        redact_secrets: null,
        redact_pii: null,
        effective: { redact_secrets: true, redact_pii: false },
        interceptors: [{ id: i.id, name: 'Scoped', phases: ['before', 'after'] }],
      });
      expect((await admin.client.get('/api/v1/bundles/00000000-0000-4000-8000-000000000001/guardrails')).status).to.equal(404);
    });

    it('is for admins only', async () => {
      expect((await member.client.get('/api/v1/guardrails')).status).to.equal(403);
      expect((await member.client.get('/api/v1/interceptors')).status).to.equal(403);
      expect(
        (await member.client.put(`/api/v1/bundles/${bundle.id}/guardrails`, { redact_secrets: false, redact_pii: null })).status,
      ).to.equal(403);
    });
  });
});
