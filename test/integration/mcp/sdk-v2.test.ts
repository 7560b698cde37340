import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { startFixtureHttp, type ChildServer } from '../../helpers/upstreams.js';

/** An SDK v2 client pinned to 2026-07-28 (stateless: server/discover, per-request _meta). */
async function connectModern(url: string, capabilities: Record<string, unknown>, key?: string): Promise<Client> {
  const client = new Client(
    { name: 'toolgate-v2-test', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const requestInit = key ? { headers: { authorization: `Bearer ${key}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit ? { requestInit } : {}));
  return client;
}

/**
 * The official SDK v2 client (@modelcontextprotocol/client) on 2026-07-28 through both routes:
 * `listen()` hears tools/list_changed after a bundle change, and a tool whose upstream asks for
 * elicitation completes through the client's own input-required handling.
 */
describe('MCP through the SDK v2 client (2026-07-28)', () => {
  let t: TestServer;
  let upstream: ChildServer;
  let fixture: FixtureBundle;
  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    upstream = await startFixtureHttp('http');
    fixture = await setupFixtureBundle(t.owner, t.url, { name: 'sdk-v2', upstreamUrl: upstream.url });
  });
  after(async () => {
    await t?.stop();
    await upstream?.stop();
  });

  const routes = [
    { name: '/mcp/bundle', url: () => fixture.endpoint, key: () => undefined },
    { name: '/mcp/gateway', url: () => `${t.url}/mcp/gateway`, key: () => t.ownerKey },
  ];
  for (const route of routes) {
    describe(route.name, () => {
      it('listen() receives notifications/tools/list_changed after a bundle change', async () => {
        const client = await connectModern(route.url(), {}, route.key());
        try {
          let heard!: () => void;
          const changed = new Promise<void>((resolve) => (heard = resolve));
          client.setNotificationHandler('notifications/tools/list_changed', () => heard());
          const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
          expect(subscription.honoredFilter).to.deep.equal({ toolsListChanged: true, promptsListChanged: true });
          const renamed = await t.owner.put(`/api/v1/bundles/${fixture.bundleId}`, { name: `sdk-v2-${route.name.slice(5)}` });
          expect(renamed.status).to.equal(200);
          await changed;
          await subscription.close();
          expect(await subscription.closed).to.equal('local');
        } finally {
          await client.close();
        }
      });

      it('completes a tool call that needs elicitation through an input-required result', async () => {
        const client = await connectModern(route.url(), { elicitation: {} }, route.key());
        try {
          const asked: string[] = [];
          client.setRequestHandler('elicitation/create', async (request) => {
            asked.push(String((request.params as { message?: unknown }).message));
            return { action: 'accept', content: { name: 'Vera' } };
          });
          const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
          expect(result.content).to.deep.equal([{ type: 'text', text: 'Hello, Vera!' }]);
          expect(asked).to.deep.equal(['What is your name?']);
        } finally {
          await client.close();
        }
      });
    });
  }
});
