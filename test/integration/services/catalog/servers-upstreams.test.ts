import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UpstreamError, type UpstreamProgress } from '../../../../src/domain/upstream-call.js';
import { capturedLogs, LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import {
  EVERYTHING_BIN,
  FILESYSTEM_BIN,
  fixtureStdio,
  register,
  startEverythingHttp,
  startFixtureHttp,
  waitConnected,
  waitFor,
  type ChildServer,
} from '../../../helpers/upstreams.js';

/** Runs `fn` and returns the UpstreamError it rejects with (fails when it resolves). */
async function rejection(fn: () => Promise<unknown>): Promise<UpstreamError> {
  try {
    await fn();
  } catch (err) {
    expect(err).to.be.instanceOf(UpstreamError);
    return err as UpstreamError;
  }
  throw new Error('expected a rejection');
}

const textOf = (result: { content: unknown[] }) => (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe('upstream MCP servers, real processes on loopback', function () {
  this.timeout(120000);
  let t: TestServer;
  let fixtureHttp: ChildServer;
  let fixtureSse: ChildServer;
  let everythingHttp: ChildServer;
  let tmpDir: string;
  const ids: Record<string, string> = {};

  before(async () => {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-fs-'));
    fs.writeFileSync(path.join(tmpDir, 'hello.txt'), 'hello from the filesystem server');
    // Each is assigned as soon as it runs, so `after` stops it even when another fails to start.
    await Promise.all([
      startTestServer({
        env: {
          ...LOOPBACK_UPSTREAMS,
          TOOLGATE_UPSTREAM_RETRY_BASE_MS: '100',
          TOOLGATE_UPSTREAM_RETRY_MAX_MS: '1000',
          TOOLGATE_UPSTREAM_CONNECT_TIMEOUT_MS: '20000',
        },
      }).then((x) => (t = x)),
      startFixtureHttp('http').then((x) => (fixtureHttp = x)),
      startFixtureHttp('sse').then((x) => (fixtureSse = x)),
      startEverythingHttp().then((x) => (everythingHttp = x)),
    ]);
  });
  after(async () => {
    await t?.stop();
    await Promise.all([fixtureHttp?.stop(), fixtureSse?.stop(), everythingHttp?.stop()]);
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  describe('each upstream registers, connects, syncs its tools and answers calls through the pool', () => {
    const cases: {
      key: string;
      body: () => Record<string, unknown>;
      tool: string;
      args: () => Record<string, unknown>;
      expect: RegExp;
      minTools: number;
    }[] = [
      {
        key: 'fixture-stdio',
        body: () => ({ transport: 'stdio', ...fixtureStdio() }),
        tool: 'echo',
        args: () => ({ text: 'hi stdio' }),
        expect: /^hi stdio$/,
        minTools: 20,
      },
      {
        key: 'fixture-http',
        body: () => ({
          transport: 'streamable_http',
          url: fixtureHttp.url,
          headers: { Authorization: 'Bearer upstream-cred-1', 'X-Fixture': 'x1' },
        }),
        tool: 'echo',
        args: () => ({ text: 'hi http' }),
        expect: /^hi http$/,
        minTools: 20,
      },
      {
        key: 'fixture-sse',
        body: () => ({ transport: 'sse', url: fixtureSse.url, headers: { Authorization: 'Bearer upstream-cred-2' } }),
        tool: 'echo',
        args: () => ({ text: 'hi sse' }),
        expect: /^hi sse$/,
        minTools: 20,
      },
      {
        key: 'everything-stdio',
        body: () => ({ transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] }),
        tool: 'echo',
        args: () => ({ message: 'hi everything' }),
        expect: /hi everything/,
        minTools: 5,
      },
      {
        key: 'everything-http',
        body: () => ({ transport: 'streamable_http', url: everythingHttp.url }),
        tool: 'get-sum',
        args: () => ({ a: 2, b: 3 }),
        expect: /5/,
        minTools: 5,
      },
      {
        key: 'filesystem-stdio',
        body: () => ({ transport: 'stdio', command: process.execPath, args: [FILESYSTEM_BIN, tmpDir] }),
        tool: 'read_text_file',
        args: () => ({ path: path.join(tmpDir, 'hello.txt') }),
        expect: /hello from the filesystem server/,
        minTools: 5,
      },
    ];
    for (const c of cases) {
      it(`${c.key}: registers, connects, syncs its tools and answers a call`, async () => {
        const created = await register(t.owner, { name: c.key, ...c.body() });
        expect(created.status).to.be.oneOf(['connecting', 'connected']);
        ids[c.key] = created.id;
        const s = await waitConnected(t.owner, created.id, c.minTools);
        expect(s.protocol_version).to.be.a('string').with.length.greaterThan(0);
        expect(s.server_info?.name).to.be.a('string');
        expect(s.last_error).to.equal(null);
        expect(s.last_connected_at).to.be.a('string');
        const withLatency = await waitFor('a probe latency', async () => {
          const r = await t.owner.get(`/api/v1/servers/${created.id}`);
          return typeof r.body.latency_ms === 'number' ? r.body : false;
        });
        expect(withLatency.latency_ms).to.be.at.least(0);

        const rest = (await t.owner.get(`/api/v1/servers/${created.id}/tools?page_size=100`)).body;
        expect(rest.total).to.equal(s.tool_count);
        const restTool = rest.items.find((x: any) => x.name === c.tool);
        expect(restTool).to.include({ enabled: true, available: true, server_name: c.key });
        expect(restTool.input_schema.type).to.equal('object');
        const catalogTool = t.server.services.catalog.tool(restTool.id);
        expect(catalogTool).to.include({ serverId: created.id, serverName: c.key, name: c.tool, enabled: true, available: true });
        expect(t.server.services.catalog.serverState(created.id)).to.deep.equal({ name: c.key, enabled: true, connected: true });

        const result = await t.server.services.upstreams.callTool(created.id, c.tool, c.args(), { timeoutMs: 15000 });
        expect(result.isError ?? false).to.equal(false);
        expect(textOf(result)).to.match(c.expect);
      });
    }

    it('the fixture exposes every name the conformance suite expects', async () => {
      const catalog = t.server.services.catalog;
      const id = ids['fixture-stdio']!;
      expect(catalog.toolsOfServer(id).map((x) => x.name)).to.include.members([
        'test_simple_text',
        'test_image_content',
        'test_audio_content',
        'test_embedded_resource',
        'test_multiple_content_types',
        'test_tool_with_logging',
        'test_logging_tool',
        'test_streaming_elicitation',
        'test_tool_with_progress',
        'test_error_handling',
        'test_sampling',
        'test_elicitation',
        'test_elicitation_sep1034_defaults',
        'test_elicitation_sep1330_enums',
        'json_schema_2020_12_tool',
        // 2026-07-28: the diagnostic tools of server-stateless and the input-required (SEP-2322) tools.
        'test_missing_capability',
        'test_trigger_tool_change',
        'test_trigger_prompt_change',
        'test_input_required_result_elicitation',
        'test_input_required_result_sampling',
        'test_input_required_result_list_roots',
        'test_input_required_result_request_state',
        'test_input_required_result_multiple_inputs',
        'test_input_required_result_multi_round',
        'test_input_required_result_tampered_state',
        'test_input_required_result_capabilities',
      ]);
      expect(catalog.resourcesOfServer(id).map((r) => r.uri)).to.include.members(['test://static-text', 'test://static-binary']);
      expect(catalog.promptsOfServer(id).map((p) => p.name)).to.include.members([
        'test_simple_prompt',
        'test_prompt_with_arguments',
        'test_prompt_with_embedded_resource',
        'test_prompt_with_image',
        'test_input_required_result_prompt',
      ]);
    });

    it('passes the configured headers (decrypted) to HTTP upstreams', async () => {
      const r = await t.server.services.upstreams.callTool(ids['fixture-http']!, 'whoami', {});
      expect(r.structuredContent).to.include({ authorization: 'Bearer upstream-cred-1', x_fixture: 'x1', mode: 'http' });
    });

    it('gives a stdio upstream its env and secret env, and none of our own environment', async () => {
      process.env.TOOLGATE_PARENT_ONLY_CANARY = 'must-not-leak';
      try {
        const s = await register(t.owner, {
          name: 'env-check',
          transport: 'stdio',
          ...fixtureStdio(),
          env: { FIXTURE_PLAIN: 'plain-value' },
          secret_env: { FIXTURE_SECRET: 'secret-value-41' },
        });
        await waitConnected(t.owner, s.id);
        const r = await t.server.services.upstreams.callTool(s.id, 'whoami', {});
        const info = r.structuredContent as { fixture_secret: string; fixture_plain: string; env_names: string[] };
        expect(info.fixture_secret).to.equal('secret-value-41');
        expect(info.fixture_plain).to.equal('plain-value');
        expect(info.env_names).not.to.include('TOOLGATE_PARENT_ONLY_CANARY');
        await t.owner.delete(`/api/v1/servers/${s.id}`);
      } finally {
        delete process.env.TOOLGATE_PARENT_ONLY_CANARY;
      }
    });

    it('syncs the fixture’s resources, resource templates and prompts, and reads them through the pool', async () => {
      const id = ids['fixture-stdio']!;
      const resources = (await t.owner.get(`/api/v1/servers/${id}/resources?page_size=100`)).body;
      expect(resources.items.map((r: any) => r.uri)).to.include.members([
        'test://static-text',
        'test://static-binary',
        'test://template/{id}/data',
      ]);
      expect(resources.items.find((r: any) => r.uri === 'test://template/{id}/data').is_template).to.equal(true);
      expect(resources.items.find((r: any) => r.uri === 'test://static-text')).to.include({ is_template: false, mime_type: 'text/plain' });
      const prompts = (await t.owner.get(`/api/v1/servers/${id}/prompts?search=test_prompt_with_arg`)).body;
      expect(prompts.items).to.have.length(1);
      expect(prompts.items[0].name).to.equal('test_prompt_with_arguments');
      expect(prompts.items[0].arguments.map((a: any) => [a.name, a.required])).to.deep.equal([
        ['arg1', true],
        ['arg2', true],
      ]);
      const server = (await t.owner.get(`/api/v1/servers/${id}`)).body;
      expect(server.resource_count).to.equal(resources.total);
      expect(server.prompt_count).to.equal(5);
      const catalog = t.server.services.catalog;
      expect(catalog.resourceTemplatesOfServer(id).map((r) => r.uriTemplate)).to.deep.equal(['test://template/{id}/data']);
      expect(catalog.promptsOfServer(id).map((p) => p.name)).to.include('test_simple_prompt');

      const read = await t.server.services.upstreams.readResource(id, 'test://template/123/data');
      expect(JSON.stringify(read.contents)).to.include('Data for ID: 123');
      const prompt = await t.server.services.upstreams.getPrompt(id, 'test_prompt_with_arguments', { arg1: 'one', arg2: 'two' });
      expect(JSON.stringify(prompt.messages)).to.include("arg1='one', arg2='two'");
    });

    it('keeps the upstream’s schemas and annotations as published', async () => {
      const tools = (await t.owner.get(`/api/v1/tools?server_id=${ids['fixture-stdio']}&page_size=100`)).body.items;
      const echo = tools.find((x: any) => x.name === 'echo');
      expect(echo.title).to.equal('Echo');
      expect(echo.annotations).to.include({ readOnlyHint: true, idempotentHint: true });
      expect(echo.input_schema.properties.text.type).to.equal('string');
      const schema2020 = tools.find((x: any) => x.name === 'json_schema_2020_12_tool');
      expect(schema2020.input_schema).to.include({ $schema: 'https://json-schema.org/draft/2020-12/schema', additionalProperties: false });
      expect(schema2020.input_schema.$defs.address.type).to.equal('object');
    });
  });

  describe('calls through the pool', () => {
    it('passes progress notifications through to onProgress', async () => {
      const seen: UpstreamProgress[] = [];
      const r = await t.server.services.upstreams.callTool(
        ids['fixture-stdio']!,
        'sleep',
        { ms: 300 },
        { onProgress: (p) => seen.push(p) },
      );
      expect(textOf(r)).to.equal('slept 300 ms');
      expect(seen.length).to.be.at.least(2);
      for (let i = 1; i < seen.length; i += 1) expect(seen[i]!.progress).to.be.greaterThan(seen[i - 1]!.progress);
      expect(seen[0]!.total).to.equal(300);
    });

    for (const key of ['fixture-stdio', 'fixture-http']) {
      it(`${key}: forwards cancellation upstream when the signal aborts`, async () => {
        const id = ids[key]!;
        const before = ((await t.server.services.upstreams.callTool(id, 'whoami', {})).structuredContent as any).cancelled_calls as number;
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 200);
        const err = await rejection(() => t.server.services.upstreams.callTool(id, 'sleep', { ms: 20000 }, { signal: ac.signal }));
        expect(err.kind).to.equal('cancelled');
        await waitFor('the upstream to see the cancellation', async () => {
          const r = await t.server.services.upstreams.callTool(id, 'whoami', {});
          return (r.structuredContent as any).cancelled_calls === before + 1;
        });
      });
    }

    it('fails a slow call with kind timeout within its timeout, and the server keeps serving', async () => {
      const id = ids['fixture-stdio']!;
      const started = Date.now();
      const err = await rejection(() => t.server.services.upstreams.callTool(id, 'sleep', { ms: 20000 }, { timeoutMs: 400 }));
      expect(err.kind).to.equal('timeout');
      expect(err.message).to.match(/timed out after 400 ms/);
      expect(Date.now() - started).to.be.lessThan(10000);
      expect(textOf(await t.server.services.upstreams.callTool(id, 'echo', { text: 'still here' }))).to.equal('still here');
    });

    it('returns tool failures as results with isError, and refuses calls to unknown servers', async () => {
      const r = await t.server.services.upstreams.callTool(ids['fixture-stdio']!, 'test_error_handling', {});
      expect(r.isError).to.equal(true);
      expect(textOf(r)).to.include('intentionally returns an error');
      const err = await rejection(() => t.server.services.upstreams.callTool('00000000-0000-4000-8000-000000000000', 'echo', {}));
      expect(err.kind).to.equal('unavailable');
    });

    it('re-initialises transparently when the HTTP upstream forgets the session', async () => {
      const id = ids['fixture-http']!;
      const pidBefore = ((await t.server.services.upstreams.callTool(id, 'whoami', {})).structuredContent as any).pid;
      await t.server.services.upstreams.callTool(id, 'forget_sessions', {});
      await new Promise((r) => setTimeout(r, 100));
      const r = await t.server.services.upstreams.callTool(id, 'echo', { text: 'after 404' });
      expect(textOf(r)).to.equal('after 404');
      expect(((await t.server.services.upstreams.callTool(id, 'whoami', {})).structuredContent as any).pid).to.equal(pidBefore);
      expect(t.server.services.pool.state(id)?.status).to.equal('connected');
    });

    it('serves many concurrent calls over the one shared client', async () => {
      const id = ids['fixture-stdio']!;
      const pid = t.server.services.pool.state(id)?.pid;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => t.server.services.upstreams.callTool(id, 'echo', { text: `n${i}` })),
      );
      expect(results.map(textOf)).to.deep.equal(Array.from({ length: 40 }, (_, i) => `n${i}`));
      expect(t.server.services.pool.state(id)?.pid).to.equal(pid);
    });
  });

  describe('catalog sync', () => {
    it('tools/list_changed from an upstream updates the catalog without a restart; a vanished tool is kept, unavailable', async () => {
      const id = ids['fixture-stdio']!;
      const pool = t.server.services.pool;
      const catalog = t.server.services.catalog;
      await pool.callTool(id, 'add_tool', { name: 'late_tool' });
      const added = (await waitFor('late_tool in the catalog', () => catalog.toolsOfServer(id).find((x) => x.name === 'late_tool')))!;
      expect(added).to.include({ enabled: true, available: true });
      const rest = (await t.owner.get(`/api/v1/servers/${id}/tools?search=late_tool`)).body.items;
      expect(rest.map((x: any) => x.id)).to.deep.equal([added.id]);

      await pool.callTool(id, 'remove_tool', { name: 'late_tool' });
      await waitFor('late_tool unavailable', () => catalog.tool(added.id)?.available === false);
      const gone = (await t.owner.get(`/api/v1/servers/${id}/tools?search=late_tool`)).body.items[0];
      expect(gone).to.include({ id: added.id, available: false });

      await pool.callTool(id, 'add_tool', { name: 'late_tool' });
      await waitFor('late_tool back', () => catalog.tool(added.id)?.available === true);
    });

    it('POST /refresh re-reads the lists; tool ids stay the same', async () => {
      const id = ids['fixture-http']!;
      const before = (await t.owner.get(`/api/v1/servers/${id}/tools?page_size=100`)).body.items.map((x: any) => `${x.name}:${x.id}`);
      const res = await t.owner.post(`/api/v1/servers/${id}/refresh`);
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('connected');
      const after = (await t.owner.get(`/api/v1/servers/${id}/tools?page_size=100`)).body.items.map((x: any) => `${x.name}:${x.id}`);
      expect(after).to.deep.equal(before);
    });

    it('a header change reconnects with the new credential; a rename does not restart the process', async () => {
      const httpId = ids['fixture-http']!;
      const res = await t.owner.patch(`/api/v1/servers/${httpId}`, { headers: { Authorization: 'Bearer rotated-cred' } });
      expect(res.status).to.equal(200);
      expect(res.body.header_names).to.deep.equal(['Authorization', 'X-Fixture']);
      await waitFor('the rotated credential upstream', async () => {
        const r = await t.server.services.upstreams.callTool(httpId, 'whoami', {}).catch(() => undefined);
        return (r?.structuredContent as any)?.authorization === 'Bearer rotated-cred';
      });
      const stdioId = ids['everything-stdio']!;
      const pid = t.server.services.pool.state(stdioId)?.pid;
      expect((await t.owner.patch(`/api/v1/servers/${stdioId}`, { description: 'renamed soon' })).status).to.equal(200);
      expect(t.server.services.pool.state(stdioId)?.pid).to.equal(pid);
    });

    it('a rename reaches the catalog', async () => {
      const id = ids['everything-stdio']!;
      const pid = t.server.services.pool.state(id)?.pid;
      const res = await t.owner.patch(`/api/v1/servers/${id}`, { name: 'everything-renamed', call_timeout_ms: 5000 });
      expect(res.status).to.equal(200);
      expect(res.body.call_timeout_ms).to.equal(5000);
      expect(t.server.services.catalog.serverState(id)?.name).to.equal('everything-renamed');
      expect(t.server.services.catalog.toolsOfServer(id)[0]?.serverName).to.equal('everything-renamed');
      expect(t.server.services.pool.state(id)?.pid).to.equal(pid);
    });
  });

  describe('faults', () => {
    it('a stdio upstream killed mid-call: that call fails clearly, other servers keep working, and it reconnects by itself', async () => {
      const pool = t.server.services.pool;
      const a = ids['fixture-stdio']!;
      const b = ids['fixture-http']!;
      const oldPid = pool.state(a)?.pid;
      expect(oldPid).to.be.a('number');
      const started = Date.now();
      const inFlight = rejection(() => pool.callTool(a, 'sleep', { ms: 30000 }, { timeoutMs: 20000 }));
      const other = pool.callTool(b, 'sleep', { ms: 500 });
      await new Promise((r) => setTimeout(r, 200));
      process.kill(oldPid!, 'SIGKILL');
      const err = await inFlight;
      expect(err.kind).to.equal('unavailable');
      expect(err.message).to.include('fixture-stdio');
      expect(Date.now() - started).to.be.lessThan(20000);
      expect(textOf(await other)).to.equal('slept 500 ms');
      expect(textOf(await pool.callTool(b, 'echo', { text: 'b fine' }))).to.equal('b fine');
      const back = await waitConnected(t.owner, a);
      expect(back.status).to.equal('connected');
      expect(pool.state(a)?.pid).to.be.a('number').and.not.equal(oldPid);
      expect(textOf(await pool.callTool(a, 'echo', { text: 'a back' }))).to.equal('a back');
    });

    it('an HTTP upstream killed mid-call: the call fails within its timeout, and it reconnects once the upstream is back', async () => {
      const pool = t.server.services.pool;
      const own = await startFixtureHttp('http');
      try {
        // A short health-check interval: once the fast reconnects are spent (a loaded machine may take
        // longer to start the fixture again), the next attempt comes within seconds, not a minute.
        const s = await register(t.owner, {
          name: 'http-crash',
          transport: 'streamable_http',
          url: own.url,
          health_check_interval_seconds: 10,
        });
        await waitConnected(t.owner, s.id);
        const started = Date.now();
        const inFlight = rejection(() => pool.callTool(s.id, 'sleep', { ms: 30000 }, { timeoutMs: 3000 }));
        await new Promise((r) => setTimeout(r, 200));
        await own.stop('SIGKILL');
        const err = await inFlight;
        expect(err.kind).to.be.oneOf(['unavailable', 'timeout']);
        expect(Date.now() - started).to.be.lessThan(3000 + 2000);
        expect(textOf(await pool.callTool(ids['fixture-stdio']!, 'echo', { text: 'others fine' }))).to.equal('others fine');
        const down = await waitFor('status error', async () => {
          const r = await t.owner.get(`/api/v1/servers/${s.id}`);
          return r.body.status === 'error' ? r.body : false;
        });
        expect(down.last_error).to.be.a('string');
        const revived = await startFixtureHttp('http', own.port);
        try {
          await waitConnected(t.owner, s.id);
          expect(textOf(await pool.callTool(s.id, 'echo', { text: 'http back' }))).to.equal('http back');
        } finally {
          await t.owner.delete(`/api/v1/servers/${s.id}`);
          await revived.stop();
        }
      } finally {
        await own.stop();
      }
    });

    it('an upstream that never answers initialize blocks neither the API nor other servers', async () => {
      const s = await register(t.owner, {
        name: 'silent',
        transport: 'stdio',
        command: process.execPath,
        args: ['-e', 'setInterval(() => {}, 1000)'],
      });
      expect(s.status).to.equal('connecting');
      const err = await rejection(() => t.server.services.upstreams.callTool(s.id, 'anything', {}, { timeoutMs: 300 }));
      expect(err.kind).to.be.oneOf(['timeout', 'unavailable']);
      expect(textOf(await t.server.services.upstreams.callTool(ids['fixture-stdio']!, 'echo', { text: 'unblocked' }))).to.equal(
        'unblocked',
      );
      expect((await t.owner.get('/api/v1/servers?page_size=100')).status).to.equal(200);
      await t.owner.delete(`/api/v1/servers/${s.id}`);
    });
  });

  describe('secrets', () => {
    it('no upstream credential reaches a log line or a response', async () => {
      const logs = capturedLogs.join('');
      for (const secret of ['upstream-cred-1', 'upstream-cred-2', 'rotated-cred', 'secret-value-41']) expect(logs).not.to.include(secret);
      const all = await t.owner.get('/api/v1/servers?page_size=100');
      for (const secret of ['upstream-cred', 'rotated-cred', 'secret-value-41']) expect(all.text).not.to.include(secret);
    });
  });
});
