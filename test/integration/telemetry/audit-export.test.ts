import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory from 'knex';
import type { AuditEvent } from '../../../src/domain/audit-event.js';
import { AuditExportStore } from '../../../src/stores/audit-export-store.js';
import { AuditExporter } from '../../../src/telemetry/audit-export.js';
import { webhookSignature } from '../../../src/telemetry/audit-sinks.js';
import { mcpFetch, modernRequest } from '../../helpers/mcp-http.js';
import { authorizeAndApprove, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from '../../helpers/oauth-client.js';
import { OtlpReceiver } from '../../helpers/otlp-receiver.js';
import { LOOPBACK_UPSTREAMS, startTestServer, TEST_DATABASE_URL, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';

const SECRET = 'audit-webhook-secret-0123456789abcdef';
const ARGUMENT = 'argument-value-5ac1e';

/** A webhook receiver that keeps each delivery (and can refuse the next ones: a sink that is down). */
class Webhook {
  readonly deliveries: { body: string; timestamp: string; signature: string }[] = [];
  refuse = 0;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (this.refuse > 0) {
        this.refuse -= 1;
        res.writeHead(503).end();
        return;
      }
      this.deliveries.push({
        body: Buffer.concat(chunks).toString('utf8'),
        timestamp: String(req.headers['x-toolgate-timestamp']),
        signature: String(req.headers['x-toolgate-signature']),
      });
      res.writeHead(204).end();
    });
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/audit`;
  }
  events(): any[] {
    return this.deliveries.flatMap((d) => JSON.parse(d.body).events);
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('Audit export', function () {
  this.timeout(60_000);
  let t: TestServer;
  let dir: string;
  let file: string;
  let webhook: Webhook;
  let receiver: OtlpReceiver;
  let env: Record<string, string>;
  let endpoint: string;
  let bundleId: string;
  let ownerKey: string;
  const saved = { ...process.env };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-audit-'));
    file = path.join(dir, 'audit.jsonl');
    webhook = new Webhook();
    receiver = new OtlpReceiver();
    // The OTLP log exporter reads the standard variables itself.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = await receiver.start();
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    env = {
      ...LOOPBACK_UPSTREAMS,
      TOOLGATE_AUDIT_OTLP_LOGS: 'true',
      TOOLGATE_AUDIT_FILE: file,
      TOOLGATE_AUDIT_WEBHOOK_URL: await webhook.start(),
      TOOLGATE_AUDIT_WEBHOOK_SECRET: SECRET,
      // Rounds are run by the test (runOnce), not the timer.
      TOOLGATE_AUDIT_INTERVAL_MS: '600000',
      // A single-process database has no writes in flight between rounds: holes are passed at once.
      TOOLGATE_AUDIT_GAP_GRACE_MS: '0',
    };
    t = await startTestServer({ env, keepData: true, start: { upstreams: new TestUpstreams() } });
    ownerKey = t.ownerKey;
    const { tools } = putFixtureServer(t.server.services.catalog, 'fixture', [{ name: 'echo' }]);
    const created = await t.owner.post('/api/v1/bundles', { name: 'audited', tools: [{ tool_id: tools.echo!.id }] });
    bundleId = created.body.id;
    endpoint = `${t.url}/mcp/gateway`;
  });

  after(async () => {
    await t?.stop();
    await webhook?.stop();
    await receiver?.stop();
    process.env = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exports tool calls and activity with who, what, target, outcome and latency to every sink; no argument values', async () => {
    const { headers, body } = modernRequest('tools/call', { name: 'echo', arguments: { text: ARGUMENT } });
    const answer = await mcpFetch(endpoint, { body, headers: { ...headers, authorization: `Bearer ${t.ownerKey}` } });
    expect(answer.status).to.equal(200);
    await t.server.services.callRecorder.flush();
    await t.server.services.auditExport.runOnce();

    const me = (await t.owner.get('/api/v1/users/me')).body;
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const created = lines.find((e) => e.kind === 'activity' && e.target.id === bundleId)!;
    expect(created).to.deep.include({ outcome: 'success' });
    expect(created.action).to.equal('bundle.create');
    expect(created.details).to.be.an('object');
    expect(created.actor).to.include({ user_id: me.id, email: 'owner@example.com' });
    const call = lines.find((e) => e.kind === 'tool_call')!;
    expect(call).to.deep.include({ action: 'tools/call', outcome: 'ok', endpoint: 'gateway' });
    expect(call.actor).to.include({ user_id: me.id, email: 'owner@example.com' });
    expect(call.actor.api_key_id).to.be.a('string');
    expect(call.target).to.include({ type: 'tool', name: 'echo' });
    expect(call.latency_ms).to.be.a('number');
    // Numbered in order, without repeats.
    const seqs = lines.map((e) => e.seq);
    expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).to.equal(seqs.length);

    // The webhook got the same events, signed over its timestamp and body.
    expect(webhook.events().map((e) => e.seq)).to.deep.equal(seqs);
    for (const d of webhook.deliveries) expect(d.signature).to.equal(webhookSignature(SECRET, d.timestamp, d.body));

    // OTLP logs: one record per event, with the identity as attributes.
    const logged = receiver.logs.find((l) => l.attributes['toolgate.audit.kind'] === 'tool_call')!;
    expect(logged.attributes).to.include({ 'user.email': 'owner@example.com', 'gen_ai.tool.name': 'echo', 'toolgate.audit.outcome': 'ok' });
    expect(receiver.logs).to.have.length(seqs.length);

    const everything = fs.readFileSync(file, 'utf8') + webhook.deliveries.map((d) => d.body).join('') + JSON.stringify(receiver.logs);
    expect(everything).not.to.include(ARGUMENT);
    expect(everything).not.to.include(t.ownerKey);
    expect(everything).not.to.include(SECRET);
  });

  it("names the OAuth client on a call made with an access token of Toolgate's authorization server", async () => {
    const registered = await registerClient(t.url, { client_name: 'Audited agent' });
    expect(registered.status).to.equal(201);
    const clientId: string = registered.body.client_id;
    const pkce = pkcePair();
    const back = await authorizeAndApprove(t.url, t.owner, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      resource: endpoint,
      state: 'audit',
    });
    const token = await tokenRequest(t.url, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkce.verifier,
      resource: endpoint,
    });
    expect(token.status).to.equal(200);
    const { headers, body } = modernRequest('tools/call', { name: 'echo', arguments: { text: 'by-oauth' } });
    const answer = await mcpFetch(endpoint, { body, headers: { ...headers, authorization: `Bearer ${token.body.access_token}` } });
    expect(answer.status).to.equal(200);
    await t.server.services.callRecorder.flush();
    await t.server.services.auditExport.runOnce();

    const calls = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEvent)
      .filter((e) => e.kind === 'tool_call');
    const byToken = calls.at(-1)!;
    expect(byToken.actor).to.include({ email: 'owner@example.com', api_key_id: null, oauth_client_id: clientId });
    // Calls made with an API key name no client.
    expect(calls[0]!.actor.oauth_client_id).to.equal(null);
    const logged = receiver.logs.filter((l) => l.attributes['toolgate.audit.kind'] === 'tool_call').at(-1)!;
    expect(logged.attributes['toolgate.oauth_client.id']).to.equal(clientId);
    expect(fs.readFileSync(file, 'utf8')).not.to.include(token.body.access_token);
  });

  it('keeps events for a sink that is down, reports the backlog, and delivers them once it is back', async () => {
    const before = webhook.events().length;
    const fileBefore = fs.readFileSync(file, 'utf8').trim().split('\n').length;
    webhook.refuse = 1;
    await t.owner.post('/api/v1/bundles', { name: 'while-down', tools: [] });
    await t.server.services.auditExport.runOnce();
    // The file sink went on; the webhook did not get it.
    expect(fs.readFileSync(file, 'utf8').trim().split('\n').length).to.be.greaterThan(fileBefore);
    expect(webhook.events().length).to.equal(before);
    const metrics = await t.server.services.metrics.registry.metrics();
    expect(metrics).to.match(/toolgate_audit_export_backlog\{sink="webhook"\} [1-9]/);
    expect(metrics).to.match(/toolgate_audit_export_failures_total\{sink="webhook"\} 1/);
    // After the backoff (1 s at first), the next round delivers what was missed.
    await new Promise((r) => setTimeout(r, 1100));
    await t.server.services.auditExport.runOnce();
    const names = webhook.events().map((e) => e.target.name);
    expect(names).to.include('while-down');
    expect(await t.server.services.metrics.registry.metrics()).to.match(/toolgate_audit_export_backlog\{sink="webhook"\} 0/);
  });

  it('resumes after a restart from the cursor in the database: nothing lost, nothing delivered twice', async () => {
    const delivered = webhook.events().map((e) => e.seq);
    await t.owner.post('/api/v1/bundles', { name: 'before-restart', tools: [] });
    const dataDir = t.config.dataDir;
    const schema = t.config.databaseSchema;
    await t.server.stop();
    // This one removes the data (or schema) when it stops.
    t = await startTestServer({ env, reuse: { dataDir, schema }, start: { upstreams: new TestUpstreams() } });
    await t.server.services.auditExport.runOnce();
    const after = webhook.events().map((e) => e.seq);
    expect(after.slice(0, delivered.length)).to.deep.equal(delivered);
    const added = webhook.events().slice(delivered.length);
    expect(added.map((e) => e.target.name)).to.deep.equal(['before-restart']);
  });

  it('exports from one instance at a time (PostgreSQL advisory lock)', async function () {
    // The embedded database belongs to one process: there is no second instance to exclude.
    if (!TEST_DATABASE_URL) this.skip();
    const knex = t.server.services.db.knex;
    const other = knexFactory({
      client: 'pg',
      connection: TEST_DATABASE_URL,
      searchPath: [t.config.databaseSchema!],
      pool: { min: 1, max: 1 },
    });
    const delivered: number[] = [];
    const instance = () =>
      new AuditExporter(
        new AuditExportStore(knex, { advisoryLock: true }),
        [
          {
            name: 'file',
            deliver: async (events: readonly AuditEvent[]) => void delivered.push(...events.map((e) => e.seq)),
            close: async () => undefined,
          },
        ],
        { batchSize: 2, intervalMs: 60_000, backlogWarn: 1000, gapGraceMs: 0 },
        { logger: { warn: () => undefined, info: () => undefined, error: () => undefined } },
      );
    try {
      // The restarted server's owner: the key made by the first start.
      const owner = t.owner.as(ownerKey);
      for (let i = 0; i < 5; i += 1) expect((await owner.post('/api/v1/bundles', { name: `locked-${i}`, tools: [] })).status).to.equal(201);
      await other.raw("select pg_advisory_lock(hashtext(current_schema() || ':toolgate.audit_export'))");
      await instance().runOnce();
      expect(delivered).to.deep.equal([]);
      await other.raw("select pg_advisory_unlock(hashtext(current_schema() || ':toolgate.audit_export'))");
      // Two instances at once: every event is delivered once, by one of them.
      await Promise.all([instance().runOnce(), instance().runOnce()]);
      expect(delivered).to.have.length(5);
      expect(new Set(delivered).size).to.equal(delivered.length);
    } finally {
      await other.destroy();
    }
  });
});
