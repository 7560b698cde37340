import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { startFixtureHttp, type ChildServer } from '../../helpers/upstreams.js';

/** One caller: an SDK v1 client declaring sampling and elicitation, recording what reaches it. */
interface Caller {
  readonly tag: string;
  readonly client: Client;
  readonly elicited: string[];
  readonly sampled: string[];
  readonly logs: string[];
}

async function caller(endpoint: string, tag: string): Promise<Caller> {
  const client = new Client({ name: `affinity-${tag}`, version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  const c: Caller = { tag, client, elicited: [], sampled: [], logs: [] };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    c.elicited.push(String((request.params as { message?: string }).message));
    return { action: 'accept', content: { answer: `answer-${tag}` } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content as { text?: string } | undefined;
    c.sampled.push(content?.text ?? '');
    return { model: 'test', role: 'assistant', content: { type: 'text', text: `sample-${tag}` } };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    c.logs.push(String(n.params.data));
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  return c;
}

/** The text of a tools/call result's first block. */
function textOf(result: unknown): string {
  return (result as { content: { text?: string }[] }).content[0]?.text ?? '';
}

describe('Session-affine upstream connections: concurrent callers each get exactly their own server-to-client requests and logs', function () {
  this.timeout(240_000);
  let t: TestServer;
  const upstreams: ChildServer[] = [];
  const bundles: Record<'stdio' | 'sse' | 'http', FixtureBundle> = {} as never;

  before(async () => {
    t = await startTestServer({
      env: {
        ...LOOPBACK_UPSTREAMS,
        TOOLGATE_UPSTREAM_AFFINE_MAX_PER_SERVER: '64',
        TOOLGATE_UPSTREAM_AFFINE_MAX_PER_USER: '40',
        TOOLGATE_UPSTREAM_AFFINE_IDLE_MS: '60000',
        // Up to 32 stdio servers start at once on a small machine.
        TOOLGATE_UPSTREAM_CONNECT_TIMEOUT_MS: '180000',
        TOOLGATE_UPSTREAM_RETRY_BASE_MS: '100',
      },
    });
    const sse = await startFixtureHttp('sse');
    const http = await startFixtureHttp('http');
    upstreams.push(sse, http);
    bundles.stdio = await setupFixtureBundle(t.owner, t.url, { name: 'aff-stdio', tools: ['relay_all', 'echo'] });
    bundles.sse = await setupFixtureBundle(t.owner, t.url, {
      name: 'aff-sse',
      tools: ['relay_all', 'echo'],
      upstreamUrl: sse.url,
      upstreamTransport: 'sse',
    });
    bundles.http = await setupFixtureBundle(t.owner, t.url, { name: 'aff-http', tools: ['relay_all', 'echo'], upstreamUrl: http.url });
  });
  after(async () => {
    await t?.stop();
    await Promise.all(upstreams.map((u) => u.stop()));
  });

  for (const transport of ['stdio', 'sse', 'http'] as const) {
    for (const n of [2, 8, 32]) {
      it(`${n} concurrent callers over ${transport}`, async () => {
        const callers = await Promise.all(
          Array.from({ length: n }, (_, i) => caller(bundles[transport].endpoint, `${transport}-${n}-${i}`)),
        );
        try {
          const results = await Promise.all(callers.map((c) => c.client.callTool({ name: 'relay_all', arguments: { tag: c.tag } })));
          for (const [i, c] of callers.entries()) {
            expect(textOf(results[i]), c.tag).to.equal(`elicited=answer-${c.tag} sampled=sample-${c.tag}`);
            expect(c.elicited, c.tag).to.deep.equal([c.tag]);
            expect(c.sampled, c.tag).to.deep.equal([c.tag]);
            expect([...c.logs].sort(), c.tag).to.deep.equal([`${c.tag} log 1`, `${c.tag} log 2`, `${c.tag} log 3`]);
          }
        } finally {
          await Promise.all(callers.map((c) => c.client.close()));
        }
      });
    }
  }

  it('counts session-affine connections in /metrics (stdio and SSE upstreams only), and plain callers keep sharing', async () => {
    const text = await t.server.services.metrics.registry.metrics();
    const series = (serverId: string) =>
      text.split('\n').filter((l) => l.startsWith('toolgate_upstream_affine_connections{') && l.includes(`server_id="${serverId}"`));
    expect(series(bundles.stdio.serverId)).to.have.length.greaterThan(0);
    expect(series(bundles.sse.serverId)).to.have.length.greaterThan(0);
    // A Streamable HTTP upstream attributes on its shared connection: no affine ones.
    expect(series(bundles.http.serverId)).to.deep.equal([]);
    const idle = (serverId: string) =>
      series(serverId)
        .filter((l) => l.includes('state="idle"'))
        .map((l) => Number(l.split(' ').pop()))[0] ?? 0;
    expect(idle(bundles.stdio.serverId)).to.be.greaterThan(0);

    // A caller that declared no client feature runs on the shared connection: no new affine one.
    const before = t.server.services.metrics;
    const plain = new Client({ name: 'plain', version: '1.0.0' });
    await plain.connect(new StreamableHTTPClientTransport(new URL(bundles.stdio.endpoint)));
    const held = idle(bundles.stdio.serverId);
    const echoed = await plain.callTool({ name: 'echo', arguments: { text: 'shared' } });
    expect(textOf(echoed)).to.contain('shared');
    const after = await before.registry.metrics();
    const idleAfter = after
      .split('\n')
      .filter(
        (l) =>
          l.startsWith('toolgate_upstream_affine_connections{') &&
          l.includes(`server_id="${bundles.stdio.serverId}"`) &&
          l.includes('idle'),
      )
      .map((l) => Number(l.split(' ').pop()))[0];
    expect(idleAfter).to.equal(held);
    await plain.close();
  });
});
