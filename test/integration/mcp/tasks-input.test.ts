import { expect } from 'chai';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { setupFixtureBundle } from '../../helpers/fixture-bundle.js';
import { ROOT } from '../../helpers/contract.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { register, startFixtureHttp, waitConnected, type ChildServer } from '../../helpers/upstreams.js';

/**
 * 2025-11-25 tasks that need input: the task goes `input_required`, the caller's `tasks/result`
 * carries the upstream's question (related to the task), and the answer goes back to the task.
 */
describe('2025-11-25 tasks that need input: input_required, the question on tasks/result, the answer relayed back', function () {
  this.timeout(90_000);
  let t: TestServer;
  let upstream: ChildServer;
  const endpoints: Record<string, string> = {};

  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    upstream = await startFixtureHttp('http');
    // Task-capable upstreams (the fixture runs confirm_delete as its own task), over stdio and HTTP.
    endpoints['task-capable stdio upstream'] = (
      await setupFixtureBundle(t.owner, t.url, { name: 'ti-stdio', tools: ['confirm_delete'] })
    ).endpoint;
    endpoints['task-capable HTTP upstream'] = (
      await setupFixtureBundle(t.owner, t.url, { name: 'ti-http', tools: ['confirm_delete'], upstreamUrl: upstream.url })
    ).endpoint;
    // An upstream without tasks: the gateway runs the task itself.
    const plain = await register(t.owner, {
      name: 'ti-own',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'test/fixtures/task-input-server.ts')],
      cwd: ROOT,
    });
    await waitConnected(t.owner, plain.id, 3);
    const tools = (await t.owner.get(`/api/v1/servers/${plain.id}/tools`)).body.items as { id: string; name: string }[];
    const bundle = await t.owner.post('/api/v1/bundles', {
      name: 'ti-own',
      tools: tools.filter((x) => x.name === 'confirm_delete').map((x) => ({ tool_id: x.id })),
    });
    endpoints["the gateway's own task"] = `${t.url}/mcp/bundle/${bundle.body.bundle_key}`;
  });
  after(async () => {
    await t?.stop();
    await upstream?.stop();
  });

  for (const where of ['task-capable stdio upstream', 'task-capable HTTP upstream', "the gateway's own task"]) {
    it(`${where}: the SDK v1 client answers the question that arrives on tasks/result`, async () => {
      const client = new Client({ name: 'tasks-input', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      const asked: { message: string; related: unknown }[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push({ message: String(request.params.message), related: request.params._meta?.['io.modelcontextprotocol/related-task'] });
        return { action: 'accept', content: { confirm: true } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoints[where]!)));
      try {
        let taskId = '';
        const statuses: string[] = [];
        let text = '';
        const stream = client.experimental.tasks.callToolStream(
          { name: 'confirm_delete', arguments: { path: '/srv/x' } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        );
        for await (const message of stream) {
          if (message.type === 'taskCreated') taskId = message.task.taskId;
          if (message.type === 'taskStatus') statuses.push(message.task.status);
          if (message.type === 'result') text = (message.result.content[0] as { text: string }).text;
          if (message.type === 'error') throw message.error;
        }
        // (The two fixtures word it differently.)
        expect(text).to.match(/^deleted \/srv\/x$/i);
        expect(asked).to.have.length(1);
        expect(asked[0]!.message).to.equal('Delete /srv/x?');
        expect(asked[0]!.related).to.deep.equal({ taskId });
        expect((await client.experimental.tasks.getTask(taskId)).status).to.equal('completed');
      } finally {
        await client.close();
      }
    });
  }

  it('tasks/get shows input_required while the question waits, and a declined answer reaches the task', async () => {
    const client = new Client({ name: 'tasks-input-raw', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    let release!: () => void;
    const answered = new Promise<void>((r) => (release = r));
    client.setRequestHandler(ElicitRequestSchema, async () => {
      await answered;
      return { action: 'decline' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoints["the gateway's own task"]!)));
    try {
      const created = await client.request(
        { method: 'tools/call', params: { name: 'confirm_delete', arguments: { path: '/srv/y' }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      const { taskId } = created.task;
      for (let i = 0; i < 100 && (await client.experimental.tasks.getTask(taskId)).status !== 'input_required'; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect((await client.experimental.tasks.getTask(taskId)).status).to.equal('input_required');
      const result = client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      release();
      expect(((await result).content[0] as { text: string }).text).to.match(/^kept \/srv\/y$/i);
    } finally {
      await client.close();
    }
  });
});
