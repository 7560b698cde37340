import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AiError } from '../../../../src/ai/ai-errors.js';
import { SecretBox } from '../../../../src/lib/secret-box.js';
import { FakeAnthropic } from '../../../helpers/fake-anthropic.js';
import { FakeOpenAi } from '../../../helpers/fake-openai.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { waitFor } from '../../../helpers/upstreams.js';
import { containsSecret, seedSecret } from '../../../helpers/secrets.js';
import { capturedLogs, startTestServer, type TestServer } from '../../../helpers/test-server.js';

const BASE = '/api/v1/settings/providers';

describe('AI providers (/api/v1/settings/providers)', function () {
  this.timeout(60000);
  let t: TestServer;
  let admin: TestUser;
  let member: TestUser;
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  const key = (label: string) => seedSecret(`sk-${label}-${randomBytes(16).toString('hex')}`);
  /** Every response body the tests saw, scanned for keys at the end. */
  const bodies: string[] = [];
  const keys: string[] = [];
  const track = <T extends { text: string }>(res: T): T => {
    bodies.push(res.text);
    return res;
  };

  const create = async (body: Record<string, unknown>) => track(await admin.client.post(BASE, body));
  const row = (id: string) => t.server.services.db.knex('ai_providers').where({ id }).first();

  before(async () => {
    openai = await new FakeOpenAi().start();
    anthropic = await new FakeAnthropic().start();
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*' } });
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
  });
  after(async () => {
    await t?.stop();
    await openai?.stop();
    await anthropic?.stop();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });
  afterEach(async () => {
    // Each test starts from an empty table.
    await t.server.services.aiProviders.deleteAll();
  });

  describe('POST', () => {
    it('creates a provider: key sealed at rest, never returned, masked; first of its type active', async () => {
      const apiKey = key('create');
      keys.push(apiKey);
      const res = await create({ provider_type: 'llm', provider: 'openai', model: 'gpt-test', api_key: apiKey, endpoint: openai.url });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        provider_type: 'llm',
        provider: 'openai',
        model: 'gpt-test',
        display_name: 'openai gpt-test',
        has_api_key: true,
        api_key_masked: `…${apiKey.slice(-4)}`,
        needs_reconfiguration: false,
        endpoint: openai.url,
        is_active: true,
        connection_verified: false,
        connection_verified_at: null,
      });
      expect(res.body).to.not.have.property('api_key');
      expect(containsSecret(res.text, apiKey)).to.equal(false);
      const stored = await row(res.body.id);
      expect(stored.api_key_sealed).to.be.a('string').and.not.include(apiKey);
      expect(SecretBox.keyIdOf(stored.api_key_sealed)).to.equal(t.server.services.secrets.currentKeyId);
      expect(t.server.services.secrets.open(stored.api_key_sealed)).to.equal(apiKey);
      expect(JSON.stringify(stored)).to.not.include(apiKey);
    });

    it('masks short keys more', async () => {
      const a = await create({ provider_type: 'llm', provider: 'ollama', model: 'm1', api_key: 'abcdefghijklmn', endpoint: openai.url });
      const b = await create({ provider_type: 'llm', provider: 'ollama', model: 'm2', api_key: 'short', endpoint: openai.url });
      const c = await create({ provider_type: 'llm', provider: 'ollama', model: 'm3', endpoint: openai.url });
      expect([a.body.api_key_masked, b.body.api_key_masked, c.body.api_key_masked]).to.deep.equal(['…klmn', '…', null]);
      expect(c.body.has_api_key).to.equal(false);
    });

    it('auto-activates only when the type has no active provider; is_active: true takes over in one step', async () => {
      const first = await create({ provider_type: 'llm', provider: 'openai', model: 'a', endpoint: openai.url });
      const second = await create({ provider_type: 'llm', provider: 'openai', model: 'b', endpoint: openai.url });
      const embedding = await create({ provider_type: 'embedding', provider: 'openai', model: 'e', endpoint: openai.url });
      expect([first.body.is_active, second.body.is_active, embedding.body.is_active]).to.deep.equal([true, false, true]);
      const third = await create({ provider_type: 'llm', provider: 'openai', model: 'c', endpoint: openai.url, is_active: true });
      expect(third.body.is_active).to.equal(true);
      const list = track(await admin.client.get(BASE));
      expect(list.status).to.equal(200);
      expect(list.body.total).to.equal(4);
      expect(list.body.items.map((p: { model: string; is_active: boolean }) => `${p.model}:${p.is_active}`)).to.deep.equal([
        'e:true',
        'c:true',
        'a:false',
        'b:false',
      ]);
    });

    it('answers 409 for a duplicate: same type, provider, model and effective endpoint', async () => {
      expect((await create({ provider_type: 'llm', provider: 'openai', model: 'gpt-x' })).status).to.equal(201);
      const dup = await create({
        provider_type: 'llm',
        provider: 'openai',
        model: 'gpt-x',
        endpoint: 'https://API.openai.com/v1/',
        api_key: key('dup'),
      });
      expect(dup.status).to.equal(409);
      expect(dup.body.code).to.equal('ai_provider_duplicate');
      expect((await create({ provider_type: 'llm', provider: 'openai', model: 'gpt-y' })).status).to.equal(201);
      expect((await create({ provider_type: 'embedding', provider: 'openai', model: 'gpt-x' })).status).to.equal(201);
    });

    it('answers 422 for anthropic embeddings, a missing or refused endpoint, credentials in the URL', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ provider_type: 'embedding', provider: 'anthropic', model: 'x' }, 'provider'],
        [{ provider_type: 'llm', provider: 'openai_compatible', model: 'x' }, 'endpoint'],
        [{ provider_type: 'llm', provider: 'openai_compatible', model: 'x', endpoint: 'http://10.1.2.3/v1' }, 'endpoint'],
        [{ provider_type: 'llm', provider: 'openai_compatible', model: 'x', endpoint: 'https://user:pw@example.com/v1' }, 'endpoint'],
        [{ provider_type: 'llm', provider: 'mystery', model: 'x' }, 'provider'],
        [{ provider_type: 'llm', provider: 'openai', model: 'x', config: { max_retries: 9 } }, 'config'],
      ];
      for (const [body, field] of cases) {
        const res = await create(body);
        expect(res.status, JSON.stringify(body)).to.equal(422);
        expect(res.body.detail.map((d: { loc: string[] }) => d.loc[1])).to.include(field);
      }
      const refused = await create({ provider_type: 'llm', provider: 'openai_compatible', model: 'x', endpoint: 'http://10.1.2.3/v1' });
      expect(refused.body.detail[0].msg).to.include('TOOLGATE_OUTBOUND_ALLOWLIST');
      expect(Number((await t.server.services.db.knex('ai_providers').count({ n: '*' }).first())?.n)).to.equal(0);
    });

    it('needs the admin role', async () => {
      expect((await member.client.post(BASE, { provider_type: 'llm', provider: 'openai', model: 'x' })).status).to.equal(403);
      expect((await member.client.get(BASE)).status).to.equal(403);
      expect((await t.anon.get(BASE)).status).to.equal(401);
    });
  });

  describe('PATCH', () => {
    it('changes only the given fields; model, endpoint and key changes reset the verification', async () => {
      const apiKey = key('patch');
      const created = await create({ provider_type: 'llm', provider: 'openai', model: 'gpt-test', api_key: apiKey, endpoint: openai.url });
      const id = created.body.id;
      expect(track(await admin.client.post(`${BASE}/${id}/test`)).body.ok).to.equal(true);
      const renamed = track(await admin.client.patch(`${BASE}/${id}`, { display_name: 'Main' }));
      expect(renamed.status).to.equal(200);
      expect(renamed.body).to.include({ display_name: 'Main', connection_verified: true, model: 'gpt-test' });
      const moved = track(await admin.client.patch(`${BASE}/${id}`, { model: 'gpt-other', config: { temperature: 0.1 } }));
      expect(moved.body).to.include({ model: 'gpt-other', connection_verified: false, connection_verified_at: null });
      expect(moved.body.config).to.deep.equal({ temperature: 0.1 });
      const newKey = key('patch-new');
      keys.push(apiKey, newKey);
      const rekeyed = track(await admin.client.patch(`${BASE}/${id}`, { api_key: newKey }));
      expect(rekeyed.body.api_key_masked).to.equal(`…${newKey.slice(-4)}`);
      expect(t.server.services.secrets.open((await row(id)).api_key_sealed)).to.equal(newKey);
      const keyless = track(await admin.client.patch(`${BASE}/${id}`, { api_key: null }));
      expect(keyless.body).to.include({ has_api_key: false, api_key_masked: null });
      expect((await row(id)).api_key_sealed).to.equal(null);
    });

    it('answers 404, 409 (would duplicate) and 422 (endpoint removed where required)', async () => {
      expect((await admin.client.patch(`${BASE}/00000000-0000-4000-8000-000000000000`, { model: 'x' })).status).to.equal(404);
      await create({ provider_type: 'llm', provider: 'vllm', model: 'one', endpoint: openai.url });
      const two = await create({ provider_type: 'llm', provider: 'vllm', model: 'two', endpoint: openai.url });
      const clash = await admin.client.patch(`${BASE}/${two.body.id}`, { model: 'one' });
      expect(clash.status).to.equal(409);
      const compat = await create({ provider_type: 'llm', provider: 'openai_compatible', model: 'c', endpoint: openai.url });
      expect((await admin.client.patch(`${BASE}/${compat.body.id}`, { endpoint: null })).status).to.equal(422);
      expect((await admin.client.patch(`${BASE}/${compat.body.id}`, {})).status).to.equal(422);
    });
  });

  describe('DELETE and activate', () => {
    it('deleting the active provider leaves none active; the next created one becomes active', async () => {
      const a = await create({ provider_type: 'llm', provider: 'openai', model: 'a', endpoint: openai.url });
      const b = await create({ provider_type: 'llm', provider: 'openai', model: 'b', endpoint: openai.url });
      expect((await admin.client.delete(`${BASE}/${a.body.id}`)).status).to.equal(204);
      const list = await admin.client.get(BASE);
      expect(list.body.items.map((p: { id: string; is_active: boolean }) => [p.id, p.is_active])).to.deep.equal([[b.body.id, false]]);
      let noActive: unknown;
      try {
        await t.server.services.aiProviders.llm();
      } catch (err) {
        noActive = err;
      }
      expect((noActive as { code?: string }).code).to.equal('no_active_llm_provider');
      const c = await create({ provider_type: 'llm', provider: 'openai', model: 'c', endpoint: openai.url });
      expect(c.body.is_active).to.equal(true);
      expect((await admin.client.delete(`${BASE}/${a.body.id}`)).status).to.equal(404);
    });

    it('activates one and deactivates the other in one transaction; idempotent; concurrent activations leave exactly one', async () => {
      const ids: string[] = [];
      for (const m of ['m1', 'm2', 'm3', 'm4', 'm5'])
        ids.push((await create({ provider_type: 'llm', provider: 'openai', model: m, endpoint: openai.url })).body.id);
      const res = track(await admin.client.post(`${BASE}/${ids[2]}/activate`));
      expect(res.status).to.equal(200);
      expect(res.body.is_active).to.equal(true);
      expect((await admin.client.post(`${BASE}/${ids[2]}/activate`)).body.is_active).to.equal(true);
      const active = async () =>
        (await t.server.services.db.knex('ai_providers').where({ is_active: true }).select('id')).map((r: { id: string }) => r.id);
      expect(await active()).to.deep.equal([ids[2]]);
      const results = await Promise.all(ids.map((id) => admin.client.post(`${BASE}/${id}/activate`)));
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
      expect(await active()).to.have.length(1);
      expect((await admin.client.post(`${BASE}/00000000-0000-4000-8000-000000000000/activate`)).status).to.equal(404);
    });
  });

  describe('POST …/test', () => {
    it('verifies an llm with a one-token completion with the stored key', async () => {
      const apiKey = key('test-llm');
      keys.push(apiKey);
      const p = await create({ provider_type: 'llm', provider: 'openai', model: 'gpt-test', api_key: apiKey, endpoint: openai.url });
      const res = track(await admin.client.post(`${BASE}/${p.body.id}/test`));
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ ok: true, error: null });
      expect(res.body.latency_ms).to.be.a('number').and.greaterThan(0);
      const [req] = openai.requestsTo('/chat/completions');
      expect(req!.headers.authorization).to.equal(`Bearer ${apiKey}`);
      expect(req!.body).to.include({ model: 'gpt-test', max_completion_tokens: 1 });
      const after = (await admin.client.get(BASE)).body.items[0];
      expect(after.connection_verified).to.equal(true);
      expect(after.connection_verified_at).to.equal(res.body.tested_at);
    });

    it('verifies an embedding provider with one embedding, and Anthropic with its own API', async () => {
      const e = await create({ provider_type: 'embedding', provider: 'ollama', model: 'embed-test', endpoint: openai.url });
      expect(track(await admin.client.post(`${BASE}/${e.body.id}/test`)).body.ok).to.equal(true);
      expect(openai.requestsTo('/embeddings')[0]!.body.input).to.deep.equal(['ping']);
      const apiKey = key('anthropic');
      keys.push(apiKey);
      const a = await create({
        provider_type: 'llm',
        provider: 'anthropic',
        model: 'claude-test',
        api_key: apiKey,
        endpoint: anthropic.url,
      });
      expect(track(await admin.client.post(`${BASE}/${a.body.id}/test`)).body.ok).to.equal(true);
      expect(anthropic.requests[0]!.body).to.include({ model: 'claude-test', max_tokens: 1 });
    });

    it('reports vendor errors clearly (401, 429, 500, garbage, timeout), without the key, and records the failure', async () => {
      const apiKey = key('test-fail');
      keys.push(apiKey);
      const p = await create({
        provider_type: 'llm',
        provider: 'openai',
        model: 'gpt-test',
        api_key: apiKey,
        endpoint: openai.url,
        config: { timeout_ms: 300 },
      });
      const id = p.body.id;
      const cases: [Parameters<FakeOpenAi['reply']>[1], RegExp, boolean][] = [
        [{ status: 401, error: { message: `Incorrect API key provided: ${apiKey}` } }, /rejected the API key \(401\)/, true],
        [{ status: 429, error: { message: 'Rate limit reached' } }, /rate limiting requests \(429\)/, true],
        [{ status: 500, error: { message: 'boom' } }, /failed \(500\)/, true],
        [
          { raw: '<html>Bad gateway</html>', contentType: 'text/html' },
          /without an answer \(is the endpoint an OpenAI-compatible API\?\)/,
          true,
        ],
        [{ delayMs: 1500 }, /did not answer within 300 ms/, false],
      ];
      for (const [reply, message, answered] of cases) {
        openai.reply('chat', reply);
        const res = track(await admin.client.post(`${BASE}/${id}/test`));
        expect(res.status).to.equal(200);
        expect(res.body.ok).to.equal(false);
        expect(res.body.error).to.match(message);
        expect(res.body.error).to.not.include(apiKey);
        expect(res.body.latency_ms === null).to.equal(!answered);
        expect((await row(id)).connection_verified).to.equal(false);
      }
      expect(openai.requestsTo('/chat/completions'), 'a test makes no retries').to.have.length(5);
    });

    it('marks a model the vendor does not know as needing reconfiguration, cleared by a new model', async () => {
      openai.strictModels = true;
      const p = await create({ provider_type: 'llm', provider: 'vllm', model: 'gone', endpoint: openai.url });
      const res = track(await admin.client.post(`${BASE}/${p.body.id}/test`));
      expect(res.body.ok).to.equal(false);
      expect(res.body.error).to.include('"gone" does not exist');
      expect((await admin.client.get(BASE)).body.items[0].needs_reconfiguration).to.equal(true);
      const fixed = track(await admin.client.patch(`${BASE}/${p.body.id}`, { model: 'gpt-test' }));
      expect(fixed.body.needs_reconfiguration).to.equal(false);
      expect(track(await admin.client.post(`${BASE}/${p.body.id}/test`)).body.ok).to.equal(true);
    });

    it('answers 404 for an unknown provider', async () => {
      expect((await admin.client.post(`${BASE}/00000000-0000-4000-8000-000000000000/test`)).status).to.equal(404);
    });
  });

  describe('needs_reconfiguration and the clients other features use', () => {
    it('is true when the stored key cannot be decrypted; tests and clients say so; a new key clears it', async () => {
      const p = await create({ provider_type: 'llm', provider: 'openai', model: 'gpt-test', api_key: key('lost'), endpoint: openai.url });
      await t.server.services.db
        .knex('ai_providers')
        .where({ id: p.body.id })
        .update({ api_key_sealed: new SecretBox(randomBytes(32)).seal('sealed under a lost master key') });
      const listed = (await admin.client.get(BASE)).body.items[0];
      expect(listed).to.include({ needs_reconfiguration: true, has_api_key: true });
      const tested = track(await admin.client.post(`${BASE}/${p.body.id}/test`));
      expect(tested.body).to.include({ ok: false, latency_ms: null });
      expect(tested.body.error).to.include('cannot be decrypted');
      let err: unknown;
      try {
        await t.server.services.aiProviders.llm();
      } catch (e) {
        err = e;
      }
      expect((err as { code?: string }).code).to.equal('ai_provider_needs_reconfiguration');
      expect(openai.requests).to.have.length(0);
      const fixed = track(await admin.client.patch(`${BASE}/${p.body.id}`, { api_key: key('fresh') }));
      expect(fixed.body.needs_reconfiguration).to.equal(false);
    });

    it('gives the active llm and embedder as clients; a 404 from the vendor marks the model gone, a success clears it', async () => {
      await create({ provider_type: 'llm', provider: 'openai', model: 'gpt-test', api_key: key('client'), endpoint: openai.url });
      await create({ provider_type: 'embedding', provider: 'vllm', model: 'embed-test', endpoint: openai.url });
      const ai = t.server.services.aiProviders;
      openai.reply('chat', { content: 'hello from the fake' });
      expect((await (await ai.llm()).chat({ messages: [{ role: 'user', content: 'hi' }] })).text).to.equal('hello from the fake');
      const vectors = await (await ai.embedder())!.embed(['a', 'b']);
      expect(vectors.map((v) => v.length)).to.deep.equal([8, 8]);
      openai.reply('chat', { status: 404, error: { message: 'The model does not exist', code: 'model_not_found' } });
      let err: unknown;
      try {
        await (await ai.llm()).chat({ messages: [{ role: 'user', content: 'hi' }] });
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(AiError);
      await waitFor(
        'model marked gone',
        async () => (await admin.client.get(BASE)).body.items.find((p: any) => p.provider_type === 'llm').needs_reconfiguration,
      );
      await (await ai.llm()).chat({ messages: [{ role: 'user', content: 'hi' }] });
      await waitFor(
        'model mark cleared',
        async () => !(await admin.client.get(BASE)).body.items.find((p: any) => p.provider_type === 'llm').needs_reconfiguration,
      );
    });

    it('has no embedder without an embedding provider', async () => {
      expect(await t.server.services.aiProviders.embedder()).to.equal(null);
    });
  });

  describe('after all of the above', () => {
    it('never shows a key in any response body or log line', () => {
      expect(keys.length).to.be.greaterThan(3);
      const logs = capturedLogs.join('');
      for (const k of keys) {
        for (const body of bodies) expect(containsSecret(body, k)).to.equal(false);
        expect(containsSecret(logs, k)).to.equal(false);
      }
    });
  });
});
