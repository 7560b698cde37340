import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { mcpFetch, modernRequest, RawSession, responseOf, type McpReply } from '../../helpers/mcp-http.js';
import { capturedLogs, LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import path from 'node:path';
import { register, startFixtureHttp, waitConnected, waitFor, type ChildServer } from '../../helpers/upstreams.js';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } } };

/** A 2026-07-28 request on `url` (with the tasks extension unless `plain`), answered as JSON-RPC. */
async function modern(url: string, method: string, params: Record<string, unknown> = {}, plain = false): Promise<McpReply> {
  const { headers, body } = modernRequest(method, plain ? params : { ...params, _meta: WITH_TASKS });
  return mcpFetch(url, { body, headers });
}

/** Polls a 2026-07-28 task until it is terminal. */
async function settledModern(url: string, taskId: string): Promise<any> {
  return waitFor(`task ${taskId} to end`, async () => {
    const task = responseOf(await modern(url, 'tasks/get', { taskId })).result;
    return task.status === 'working' ? undefined : task;
  });
}

describe('MCP tasks through the gateway (2025-11-25 tasks, 2026-07-28 tasks extension)', function () {
  this.timeout(60_000);
  let t: TestServer;
  let fixture: FixtureBundle;
  let other: FixtureBundle;
  let httpFixture: FixtureBundle;
  let stdioInput: FixtureBundle;
  let httpUpstream: ChildServer;
  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    fixture = await setupFixtureBundle(t.owner, t.url, {
      name: 'tasks',
      tools: ['greet', 'slow_compute', 'failing_job', 'protocol_error_job', 'confirm_delete', 'multi_input'],
    });
    other = await setupFixtureBundle(t.owner, t.url, { name: 'tasks-other', tools: ['slow_compute'] });
    // Its own stdio upstream: over stdio a request for input can be told to its call only while
    // that call is the only one in flight on the connection.
    stdioInput = await setupFixtureBundle(t.owner, t.url, { name: 'tasks-input-stdio', tools: ['confirm_delete'] });
    httpUpstream = await startFixtureHttp('http');
    httpFixture = await setupFixtureBundle(t.owner, t.url, {
      name: 'tasks-http',
      tools: ['confirm_delete'],
      upstreamUrl: httpUpstream.url,
    });
  });
  after(async () => {
    await t?.stop();
    await httpUpstream?.stop();
  });

  async function session(url = fixture.endpoint): Promise<RawSession> {
    const s = new RawSession(url, '2025-11-25');
    await s.initialize();
    return s;
  }

  describe('2025-11-25 sessions', () => {
    it('declares the tasks capability and shows which tools support tasks', async () => {
      const s = new RawSession(fixture.endpoint, '2025-11-25');
      const init = responseOf(await s.initialize());
      expect(init.result.capabilities.tasks).to.deep.equal({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const tools = responseOf(await s.request('tools/list')).result.tools as { name: string; execution?: unknown }[];
      expect(tools.find((x) => x.name === 'slow_compute')?.execution).to.deep.equal({ taskSupport: 'optional' });
      expect(tools.find((x) => x.name === 'greet')?.execution).to.not.deep.equal({ taskSupport: 'optional' });
    });

    it('runs a task-augmented tools/call: the task is created at once, tasks/get follows it, tasks/result gives the result', async () => {
      const s = await session();
      const created = responseOf(
        await s.request('tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'a' }, task: { ttl: 60_000 } }),
      );
      const task = created.result.task;
      expect(task).to.include({ status: 'working', ttl: 60_000 });
      expect(task.taskId).to.be.a('string');
      expect(Number.isNaN(Date.parse(task.createdAt))).to.equal(false);
      expect(created.result.content).to.equal(undefined);
      const working = responseOf(await s.request('tasks/get', { taskId: task.taskId })).result;
      expect(working).to.include({ taskId: task.taskId, status: 'working' });
      const result = responseOf(await s.request('tasks/result', { taskId: task.taskId })).result;
      expect(result.content).to.deep.equal([{ type: 'text', text: 'Computed a after 1 s' }]);
      expect(result._meta['io.modelcontextprotocol/related-task']).to.deep.equal({ taskId: task.taskId });
      const done = responseOf(await s.request('tasks/get', { taskId: task.taskId })).result;
      expect(done.status).to.equal('completed');
    });

    it('answers at once when no task is asked for, or when the tool does not support tasks', async () => {
      const s = await session();
      const sync = responseOf(await s.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'now' } })).result;
      expect(sync.content).to.deep.equal([{ type: 'text', text: 'Computed now after 0 s' }]);
      // A tool that runs only as a task: -32601 without one (the protocol's answer).
      expect(responseOf(await s.request('tools/call', { name: 'failing_job', arguments: {} })).error.code).to.equal(-32601);
      const greet = responseOf(await s.request('tools/call', { name: 'greet', arguments: { name: 'Ada' }, task: {} })).result;
      expect(greet.task).to.equal(undefined);
      expect(greet.content).to.deep.equal([{ type: 'text', text: 'Hello, Ada!' }]);
    });

    it('a tool error is a completed task whose result has isError; a protocol error is a failed task', async () => {
      const s = await session();
      const failing = responseOf(await s.request('tools/call', { name: 'failing_job', arguments: {}, task: {} })).result.task;
      const toolError = responseOf(await s.request('tasks/result', { taskId: failing.taskId })).result;
      expect(toolError.isError).to.equal(true);
      expect(responseOf(await s.request('tasks/get', { taskId: failing.taskId })).result.status).to.equal('completed');
      const broken = responseOf(await s.request('tools/call', { name: 'protocol_error_job', arguments: {}, task: {} })).result.task;
      const failed = responseOf(await s.request('tasks/result', { taskId: broken.taskId }));
      expect(failed.error.code).to.equal(-32000);
      expect(responseOf(await s.request('tasks/get', { taskId: broken.taskId })).result.status).to.equal('failed');
      // An upstream answer that fails its schema is that call's failure, not a lost connection.
      const after = responseOf(await s.request('tools/call', { name: 'greet', arguments: { name: 'again' } })).result;
      expect(after.content).to.deep.equal([{ type: 'text', text: 'Hello, again!' }]);
    });

    it('cancels a working task (and refuses to cancel it twice)', async () => {
      const s = await session();
      const task = responseOf(await s.request('tools/call', { name: 'slow_compute', arguments: { seconds: 60 }, task: {} })).result.task;
      const cancelled = responseOf(await s.request('tasks/cancel', { taskId: task.taskId })).result;
      expect(cancelled).to.include({ taskId: task.taskId, status: 'cancelled' });
      expect(responseOf(await s.request('tasks/get', { taskId: task.taskId })).result.status).to.equal('cancelled');
      const again = responseOf(await s.request('tasks/cancel', { taskId: task.taskId }));
      expect(again.error.code).to.equal(-32602);
      const result = responseOf(await s.request('tasks/result', { taskId: task.taskId }));
      expect(result.error.code).to.equal(-32602);
    });

    it('scopes tasks to the caller: another bundle key can neither see, list, read nor cancel them', async () => {
      const mine = await session();
      const theirs = await session(other.endpoint);
      const task = responseOf(await mine.request('tools/call', { name: 'slow_compute', arguments: { seconds: 5 }, task: {} })).result.task;
      const own = responseOf(await theirs.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task: {} })).result.task;
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        const reply = responseOf(await theirs.request(method, { taskId: task.taskId }));
        expect(reply.error?.code, method).to.equal(-32602);
      }
      const theirList = responseOf(await theirs.request('tasks/list')).result.tasks.map((x: { taskId: string }) => x.taskId);
      expect(theirList).to.include(own.taskId).and.not.include(task.taskId);
      // A second session of the same key is the same caller: it sees the task.
      const sameKey = await session();
      const myList = responseOf(await sameKey.request('tasks/list')).result.tasks.map((x: { taskId: string }) => x.taskId);
      expect(myList).to.include(task.taskId).and.not.include(own.taskId);
      expect(responseOf(await sameKey.request('tasks/get', { taskId: task.taskId })).result.status).to.equal('working');
      // The task still runs: the other key's cancel did nothing.
      expect(responseOf(await mine.request('tasks/cancel', { taskId: task.taskId })).result.status).to.equal('cancelled');
    });

    it('refuses an unknown task id and a bad cursor with -32602', async () => {
      const s = await session();
      expect(responseOf(await s.request('tasks/get', { taskId: 'no-such-task' })).error.code).to.equal(-32602);
      expect(responseOf(await s.request('tasks/get', {})).error.code).to.equal(-32602);
      expect(responseOf(await s.request('tasks/list', { cursor: 'x' })).error.code).to.equal(-32602);
    });

    it('works with the SDK v1 client’s task API (callToolStream, getTask, listTasks)', async () => {
      const client = new Client({ name: 'tasks-sdk', version: '1.0.0' }, { capabilities: {} });
      await client.connect(new StreamableHTTPClientTransport(new URL(fixture.endpoint)));
      try {
        const seen: string[] = [];
        let taskId = '';
        let text = '';
        const stream = client.experimental.tasks.callToolStream(
          { name: 'slow_compute', arguments: { seconds: 0.3, label: 'sdk' } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        );
        for await (const message of stream) {
          seen.push(message.type);
          if (message.type === 'taskCreated') taskId = message.task.taskId;
          if (message.type === 'result') text = (message.result.content[0] as { text: string }).text;
        }
        expect(seen[0]).to.equal('taskCreated');
        expect(seen.at(-1)).to.equal('result');
        expect(text).to.equal('Computed sdk after 0.3 s');
        expect((await client.experimental.tasks.getTask(taskId)).status).to.equal('completed');
        const listed = await client.experimental.tasks.listTasks();
        expect(listed.tasks.map((x) => x.taskId)).to.include(taskId);
      } finally {
        await client.close();
      }
    });

    it('serves tasks on /mcp/gateway, scoped to the user key', async () => {
      const key = (await t.owner.post('/api/v1/users/me/api-keys', { name: 'tasks-gateway' })).body.key as string;
      const url = `${t.url}/mcp/gateway`;
      const s = new RawSession(url, '2025-11-25');
      const authorised = (extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${key}`, ...extra } });
      const init = await mcpFetch(url, {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'g', version: '1' } },
        },
        ...authorised(),
      });
      s.sessionId = init.headers.get('mcp-session-id') ?? '';
      const call = (method: string, params: Record<string, unknown>) =>
        mcpFetch(url, { body: { jsonrpc: '2.0', id: 2, method, params }, ...authorised(s.headers()) });
      const listed = responseOf(await call('tools/list', {})).result.tools as { name: string }[];
      const name = listed.map((x) => x.name).find((n) => n.endsWith('slow_compute'))!;
      expect(name, 'a slow_compute tool on the gateway').to.be.a('string');
      const task = responseOf(await call('tools/call', { name, arguments: { seconds: 0 }, task: {} })).result.task;
      const result = responseOf(await call('tasks/result', { taskId: task.taskId })).result;
      expect(result.content[0].text).to.equal('Computed result after 0 s');
      // The bundle route's caller does not know the gateway caller's task.
      const bundleSession = await session();
      expect(responseOf(await bundleSession.request('tasks/get', { taskId: task.taskId })).error.code).to.equal(-32602);
    });
  });

  describe('the gateway’s execute tool (search/execute mode)', () => {
    it('answers with the tool’s result, awaiting a task-only tool, for legacy and 2026-07-28 callers', async () => {
      const key = (await t.owner.post('/api/v1/users/me/api-keys', { name: 'tasks-execute' })).body.key as string;
      const url = `${t.url}/mcp/gateway`;
      expect(
        (await t.owner.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute', bundle_ids: [fixture.bundleId] })).status,
      ).to.equal(200);
      try {
        const auth = { authorization: `Bearer ${key}` };
        const init = await mcpFetch(url, {
          body: {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
          },
          headers: auth,
        });
        const session = init.headers.get('mcp-session-id')!;
        const legacy = responseOf(
          await mcpFetch(url, {
            body: {
              jsonrpc: '2.0',
              id: 2,
              method: 'tools/call',
              params: { name: 'execute', arguments: { name: 'failing_job', arguments: {} } },
            },
            headers: { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
          }),
        ).result;
        expect(legacy.isError).to.equal(true);
        expect(legacy.content[0].text).to.equal('The job failed');
        const { headers, body } = modernRequest('tools/call', {
          name: 'execute',
          arguments: { name: 'slow_compute', arguments: { seconds: 0, label: 'x' } },
          _meta: WITH_TASKS,
        });
        const modernResult = responseOf(await mcpFetch(url, { body, headers: { ...headers, ...auth } })).result;
        expect(modernResult.resultType).to.equal('complete');
        expect(modernResult.content[0].text).to.equal('Computed x after 0 s');
      } finally {
        await t.owner.put('/api/v1/users/me/gateway-settings', { mode: 'direct', bundle_ids: [] });
      }
    });
  });

  describe('2026-07-28 tasks extension', () => {
    it('advertises the extension in server/discover', async () => {
      const discovered = responseOf(await modern(fixture.endpoint, 'server/discover', {}, true)).result;
      expect(discovered.capabilities.extensions).to.have.property(TASKS_EXTENSION);
      expect(discovered.capabilities.tasks).to.equal(undefined);
    });

    it('creates a task for a task-supporting tool when the caller has the extension, and inlines the result when done', async () => {
      const created = responseOf(
        await modern(fixture.endpoint, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'm' } }),
      ).result;
      expect(created.resultType).to.equal('task');
      expect(created).to.not.have.property('task');
      expect(created).to.include({ status: 'working' });
      expect(created.ttlMs).to.be.a('number');
      expect(Number.isInteger(created.ttlMs) && Number.isInteger(created.pollIntervalMs)).to.equal(true);
      expect(created).to.not.have.any.keys('ttl', 'pollInterval', 'result', 'error', 'requestState');
      const done = await settledModern(fixture.endpoint, created.taskId);
      expect(done.status).to.equal('completed');
      expect(done.result.content).to.deep.equal([{ type: 'text', text: 'Computed m after 1 s' }]);
      // The upstream's own task (named in its result's _meta) stays behind the gateway.
      expect(done.result._meta?.['io.modelcontextprotocol/related-task']).to.equal(undefined);
      expect(done).to.not.have.property('requestState');
      const sync = responseOf(await modern(fixture.endpoint, 'tools/call', { name: 'greet', arguments: { name: 'Ada' } })).result;
      expect(sync).to.include({ resultType: 'complete' });
      expect(sync.taskId).to.equal(undefined);
    });

    it('without the extension: task-supporting tools answer at once, and the tasks methods are -32021', async () => {
      const sync = responseOf(
        await modern(fixture.endpoint, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, true),
      ).result;
      expect(sync.resultType).to.equal('complete');
      expect(sync.content[0].text).to.equal('Computed result after 0 s');
      const required = await modern(fixture.endpoint, 'tools/call', { name: 'failing_job', arguments: {} }, true);
      expect(required.status).to.equal(400);
      expect(responseOf(required).error).to.deep.include({ code: -32021 });
      expect(responseOf(required).error.data).to.deep.equal({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const reply = await modern(
          fixture.endpoint,
          method,
          { taskId: 'x', ...(method === 'tasks/update' ? { inputResponses: {} } : {}) },
          true,
        );
        expect(reply.status, method).to.equal(400);
        expect(responseOf(reply).error.code, method).to.equal(-32021);
      }
    });

    it('reports a tool error as completed with isError and a protocol error as failed with an error', async () => {
      const failing = responseOf(await modern(fixture.endpoint, 'tools/call', { name: 'failing_job', arguments: {} })).result;
      const toolError = await settledModern(fixture.endpoint, failing.taskId);
      expect(toolError.status).to.equal('completed');
      expect(toolError.result.isError).to.equal(true);
      const broken = responseOf(await modern(fixture.endpoint, 'tools/call', { name: 'protocol_error_job', arguments: {} })).result;
      const failed = await settledModern(fixture.endpoint, broken.taskId);
      expect(failed.status).to.equal('failed');
      expect(failed.error.code).to.be.a('number');
      expect(failed.error.message).to.be.a('string');
      expect(failed).to.not.have.property('result');
    });

    it('acknowledges tasks/cancel with an empty result, on a working and on an ended task alike', async () => {
      const task = responseOf(await modern(fixture.endpoint, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 } })).result;
      const ack = responseOf(await modern(fixture.endpoint, 'tasks/cancel', { taskId: task.taskId })).result;
      expect(ack).to.deep.equal({ resultType: 'complete' });
      expect(responseOf(await modern(fixture.endpoint, 'tasks/get', { taskId: task.taskId })).result.status).to.equal('cancelled');
      const again = responseOf(await modern(fixture.endpoint, 'tasks/cancel', { taskId: task.taskId })).result;
      expect(again).to.deep.equal({ resultType: 'complete' });
      const unknown = responseOf(await modern(fixture.endpoint, 'tasks/get', { taskId: 'nope' }));
      expect(unknown.error.code).to.equal(-32602);
      // An update with nothing to answer is acknowledged too; for an unknown task it is -32602.
      const update = responseOf(await modern(fixture.endpoint, 'tasks/update', { taskId: task.taskId, inputResponses: {} }));
      expect(update.result).to.deep.equal({ resultType: 'complete' });
      const unknownUpdate = responseOf(await modern(fixture.endpoint, 'tasks/update', { taskId: 'nope', inputResponses: {} }));
      expect(unknownUpdate.error.code).to.equal(-32602);
    });

    it('keeps tasks/list and tasks/result out of the revision, and scopes task ids to the credential', async () => {
      const list = await modern(fixture.endpoint, 'tasks/list');
      expect(list.status).to.equal(404);
      const task = responseOf(await modern(fixture.endpoint, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } })).result;
      const foreign = responseOf(await modern(other.endpoint, 'tasks/get', { taskId: task.taskId }));
      expect(foreign.error.code).to.equal(-32602);
    });

    describe('an upstream without tasks whose task-supporting tools ask for input', () => {
      let endpoint: string;
      const ELICIT = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };
      const call = async (method: string, params: Record<string, unknown>) => {
        const { headers, body } = modernRequest(method, { ...params, _meta: ELICIT });
        return responseOf(await mcpFetch(endpoint, { body, headers }));
      };
      const status = (taskId: string, wanted: string) =>
        waitFor(`task ${taskId} to be ${wanted}`, async () => {
          const task = (await call('tasks/get', { taskId })).result;
          return task.status === wanted ? task : undefined;
        });
      before(async () => {
        const server = await register(t.owner, {
          name: 'task-input',
          transport: 'stdio',
          command: process.execPath,
          args: ['--import', 'tsx', path.resolve('test/fixtures/task-input-server.ts')],
          cwd: process.cwd(),
        });
        await waitConnected(t.owner, server.id, 3);
        const tools = (await t.owner.get(`/api/v1/servers/${server.id}/tools`)).body.items as { id: string }[];
        const created = await t.owner.post('/api/v1/bundles', { name: 'task-input', tools: tools.map((x) => ({ tool_id: x.id })) });
        endpoint = `${t.url}/mcp/bundle/${created.body.bundle_key}`;
      });

      it('runs the call as the gateway’s own task', async () => {
        const task = (await call('tools/call', { name: 'quick', arguments: {} })).result;
        expect(task.resultType).to.equal('task');
        const done = await status(task.taskId, 'completed');
        expect(done.result.content).to.deep.equal([{ type: 'text', text: 'quick answer' }]);
      });

      it('parks the task in input_required with the request, and resumes it on tasks/update', async () => {
        const task = (await call('tools/call', { name: 'confirm_delete', arguments: { path: '/tmp/x' } })).result;
        const waiting = await status(task.taskId, 'input_required');
        const keys = Object.keys(waiting.inputRequests);
        expect(keys).to.have.length(1);
        const request = waiting.inputRequests[keys[0]!];
        expect(request.method).to.equal('elicitation/create');
        expect(request.params.message).to.equal('Delete /tmp/x?');
        const ack = await call('tasks/update', {
          taskId: task.taskId,
          inputResponses: { [keys[0]!]: { action: 'accept', content: { confirm: true } } },
        });
        expect(ack.result).to.deep.equal({ resultType: 'complete' });
        const done = await status(task.taskId, 'completed');
        expect(done.result.content[0].text).to.equal('deleted /tmp/x');
        expect(done).to.not.have.property('inputRequests');
      });

      it('keeps the task waiting until every pending request is answered', async () => {
        const task = (await call('tools/call', { name: 'multi_input', arguments: {} })).result;
        const both = await waitFor('two input requests', async () => {
          const got = (await call('tasks/get', { taskId: task.taskId })).result;
          return Object.keys(got.inputRequests ?? {}).length === 2 ? got : undefined;
        });
        const [firstKey, secondKey] = Object.keys(both.inputRequests).sort((a, b) =>
          both.inputRequests[a].params.message === 'First name?' ? -1 : b === a ? 0 : 1,
        );
        await call('tasks/update', {
          taskId: task.taskId,
          inputResponses: { [firstKey!]: { action: 'accept', content: { name: 'Ada' } } },
        });
        const partial = (await call('tasks/get', { taskId: task.taskId })).result;
        expect(partial.status).to.equal('input_required');
        expect(Object.keys(partial.inputRequests)).to.deep.equal([secondKey]);
        await call('tasks/update', {
          taskId: task.taskId,
          inputResponses: { [secondKey!]: { action: 'accept', content: { name: 'Lovelace' } } },
        });
        const done = await status(task.taskId, 'completed');
        expect(done.result.content[0].text).to.equal('Ada Lovelace');
      });

      it('refuses malformed inputResponses, and a cancel ends a task that waits for input', async () => {
        const task = (await call('tools/call', { name: 'confirm_delete', arguments: {} })).result;
        await status(task.taskId, 'input_required');
        expect((await call('tasks/update', { taskId: task.taskId, inputResponses: [] })).error.code).to.equal(-32602);
        expect((await call('tasks/update', { taskId: task.taskId, inputResponses: { k: 'yes' } })).error.code).to.equal(-32602);
        expect((await call('tasks/cancel', { taskId: task.taskId })).result).to.deep.equal({ resultType: 'complete' });
        const cancelled = (await call('tasks/get', { taskId: task.taskId })).result;
        expect(cancelled.status).to.equal('cancelled');
        expect(cancelled).to.not.have.property('inputRequests');
      });
    });

    for (const over of ['stdio', 'Streamable HTTP'] as const) {
      it(`relays an upstream task’s request for input (2025-11-25 tasks side channel) as input_required (${over} upstream)`, async () => {
        const endpoint = over === 'stdio' ? stdioInput.endpoint : httpFixture.endpoint;
        const ELICIT = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } };
        const call = async (method: string, params: Record<string, unknown>) => {
          const { headers, body } = modernRequest(method, { ...params, _meta: ELICIT });
          return responseOf(await mcpFetch(endpoint, { body, headers }));
        };
        // A task left waiting for input does not hold up the next one (over Streamable HTTP each
        // upstream request arrives on its own call's stream; over stdio only a lone call can be told).
        if (over === 'Streamable HTTP') {
          const parked = (await call('tools/call', { name: 'confirm_delete', arguments: { path: '/srv/parked' } })).result;
          await waitFor('the first task to wait', async () =>
            (await call('tasks/get', { taskId: parked.taskId })).result.status === 'input_required' ? true : undefined,
          );
        }
        const task = (await call('tools/call', { name: 'confirm_delete', arguments: { path: '/srv/a' } })).result;
        expect(task.resultType).to.equal('task');
        const waiting = await waitFor('input_required', async () => {
          const got = (await call('tasks/get', { taskId: task.taskId })).result;
          return got.status === 'working' ? undefined : got;
        });
        expect(waiting.status, JSON.stringify(waiting)).to.equal('input_required');
        const [key] = Object.keys(waiting.inputRequests);
        expect(waiting.inputRequests[key!].params.message).to.equal('Delete /srv/a?');
        await call('tasks/update', { taskId: task.taskId, inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } } });
        const done = await waitFor('the task to end', async () => {
          const got = (await call('tasks/get', { taskId: task.taskId })).result;
          return got.status === 'input_required' || got.status === 'working' ? undefined : got;
        });
        expect(done.status, JSON.stringify(done) + capturedLogs.slice(-6).join('')).to.equal('completed');
        expect(done.result.content[0].text).to.equal('Deleted /srv/a');
      });
    }

    it('checks Mcp-Name against params.taskId on the tasks methods', async () => {
      const { headers, body } = modernRequest('tasks/get', { taskId: 'abc', _meta: WITH_TASKS });
      const reply = await mcpFetch(fixture.endpoint, { body, headers: { ...headers, 'mcp-name': 'other' } });
      expect(reply.status).to.equal(400);
      expect(responseOf(reply).error.code).to.equal(-32020);
    });
  });
});
