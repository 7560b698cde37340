import { expect } from 'chai';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { ACCEPT_BOTH, mcpFetch, modernRequest, responseOf } from '../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** An open `subscriptions/listen` stream: its messages as they arrive. */
interface ListenStream {
  status: number;
  /** The next message, or undefined when none arrives within `ms`. */
  next(ms?: number): Promise<any>;
  /** Messages up to the first whose method is `method` (throws when it does not come within `ms`). */
  until(method: string, ms?: number): Promise<any[]>;
  close(): void;
}

async function listen(
  url: string,
  id: number,
  notifications: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<ListenStream> {
  const request = modernRequest('subscriptions/listen', { notifications }, id);
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...request.headers, ...headers, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
    body: JSON.stringify(request.body),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const queue: any[] = [];
  let buffer = '';
  let reading: Promise<void> | undefined;
  const pump = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended');
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) queue.push(JSON.parse(data));
    }
  };
  const next = async (ms = 3000): Promise<any> => {
    const deadline = Date.now() + ms;
    while (queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      reading ??= pump().finally(() => (reading = undefined));
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), left));
      if ((await Promise.race([reading, timer])) === 'timeout') return undefined;
    }
    return queue.shift();
  };
  return {
    status: res.status,
    next,
    async until(method, ms = 5000) {
      const seen: any[] = [];
      const deadline = Date.now() + ms;
      for (;;) {
        const m = await next(Math.max(0, deadline - Date.now()));
        if (m === undefined) throw new Error(`no ${method} within ${ms} ms (saw ${JSON.stringify(seen.map((x) => x.method))})`);
        seen.push(m);
        if (m.method === method) return seen;
      }
    },
    close: () => controller.abort(),
  };
}

describe('MCP subscriptions/listen (2026-07-28)', () => {
  let t: TestServer;
  let fixture: FixtureBundle;
  const open: ListenStream[] = [];
  before(async () => {
    t = await startTestServer();
    fixture = await setupFixtureBundle(t.owner, t.url, { name: 'listen' });
  });
  afterEach(() => open.splice(0).forEach((s) => s.close()));
  after(() => t?.stop());

  async function opened(url: string, id: number, notifications: Record<string, unknown>, headers?: Record<string, string>) {
    const s = await listen(url, id, notifications, headers);
    open.push(s);
    return s;
  }

  it('server/discover declares list changes; the stream opens with an acknowledgement tagged with the subscription id', async () => {
    const discover = responseOf(await mcpFetch(fixture.endpoint, modernRequest('server/discover'))).result;
    expect(discover.capabilities).to.deep.include({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    });
    const s = await opened(fixture.endpoint, 71, {
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: ['test://static-text'],
    });
    expect(s.status).to.equal(200);
    expect(await s.next()).to.deep.equal({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION_ID]: 71 } },
    });
  });

  it('delivers tools/list_changed when the bundle changes and when its upstream catalog changes', async () => {
    const s = await opened(fixture.endpoint, 'sub-a' as unknown as number, { toolsListChanged: true });
    expect((await s.next()).method).to.equal('notifications/subscriptions/acknowledged');
    const renamed = await t.owner.put(`/api/v1/bundles/${fixture.bundleId}`, { name: 'listen-renamed' });
    expect(renamed.status).to.equal(200);
    const first = await s.until('notifications/tools/list_changed');
    expect(first.at(-1)).to.deep.equal({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 'sub-a' } },
    });
    const triggered = await mcpFetch(fixture.endpoint, modernRequest('tools/call', { name: 'test_trigger_tool_change', arguments: {} }));
    expect(responseOf(triggered).result.content[0].text).to.match(/^(added|removed) test_dynamic_tool$/);
    await s.until('notifications/tools/list_changed');
  });

  it('sends only the notification types the filter asked for', async () => {
    const prompts = await opened(fixture.endpoint, 81, { promptsListChanged: true });
    const tools = await opened(fixture.endpoint, 82, { toolsListChanged: true });
    const nothing = await opened(fixture.endpoint, 83, {});
    for (const s of [prompts, tools, nothing]) expect((await s.next()).method).to.equal('notifications/subscriptions/acknowledged');
    await mcpFetch(fixture.endpoint, modernRequest('tools/call', { name: 'test_trigger_prompt_change', arguments: {} }));
    const seenByPrompts = await prompts.until('notifications/prompts/list_changed');
    await mcpFetch(fixture.endpoint, modernRequest('tools/call', { name: 'test_trigger_tool_change', arguments: {} }));
    const seenByTools = await tools.until('notifications/tools/list_changed');
    // Both changes have been announced by now; anything else for the narrow streams is queued.
    const later = [];
    for (let m = await prompts.next(300); m; m = await prompts.next(300)) later.push(m);
    expect([...seenByPrompts, ...later].map((m) => m.method)).to.not.include('notifications/tools/list_changed');
    expect(seenByTools.map((m) => m.method)).to.not.include('notifications/prompts/list_changed');
    expect(await nothing.next(300)).to.equal(undefined);
  });

  it('answers a malformed filter with -32602', async () => {
    for (const notifications of [null, ['toolsListChanged'], { toolsListChanged: 'yes' }, { resourceSubscriptions: [1] }]) {
      const request = modernRequest('subscriptions/listen', { notifications });
      const reply = await mcpFetch(fixture.endpoint, { ...request, unchecked: true });
      expect(reply.status).to.equal(400);
      expect(reply.json.error.code).to.equal(-32602);
      expect(reply.json.id).to.equal(request.body.id);
    }
  });

  it('works on /mcp/gateway: list changes of the user’s bundles reach the stream', async () => {
    const url = `${t.url}/mcp/gateway`;
    const auth = { authorization: `Bearer ${t.ownerKey}` };
    const s = await opened(url, 91, { toolsListChanged: true }, auth);
    expect(s.status).to.equal(200);
    expect(await s.next()).to.deep.include({ method: 'notifications/subscriptions/acknowledged' });
    const renamed = await t.owner.put(`/api/v1/bundles/${fixture.bundleId}`, { name: 'listen-gateway' });
    expect(renamed.status).to.equal(200);
    const seen = await s.until('notifications/tools/list_changed');
    expect(seen.at(-1).params._meta[SUBSCRIPTION_ID]).to.equal(91);
    const anonymous = await mcpFetch(url, {
      ...modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
      unchecked: true,
    });
    expect(anonymous.status).to.equal(401);
  });

  it('closes a gateway stream when its key is revoked', async () => {
    const created = await t.owner.post('/api/v1/users/me/api-keys', { name: 'listen-revoked' });
    expect(created.status).to.equal(201);
    const s = await opened(`${t.url}/mcp/gateway`, 95, { toolsListChanged: true }, { authorization: `Bearer ${created.body.key}` });
    expect(s.status).to.equal(200);
    expect((await s.next()).method).to.equal('notifications/subscriptions/acknowledged');
    expect((await t.owner.delete(`/api/v1/users/me/api-keys/${created.body.id}`)).status).to.equal(204);
    // The stream ends (with the listen result): the client must authenticate again to listen.
    expect(await s.next(5000)).to.deep.include({ id: 95 });
    let ended = false;
    try {
      await s.next(2000);
    } catch {
      ended = true;
    }
    expect(ended).to.equal(true);
  });

  it('ends the streams with the listen result when the server stops', async () => {
    const other = await startTestServer();
    try {
      const bundle = await setupFixtureBundle(other.owner, other.url, { name: 'listen-stop', tools: ['echo'] });
      const s = await listen(bundle.endpoint, 99, { toolsListChanged: true });
      expect((await s.next()).method).to.equal('notifications/subscriptions/acknowledged');
      const stopping = other.stop();
      expect(await s.next(5000)).to.deep.equal({
        jsonrpc: '2.0',
        id: 99,
        result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 99 } },
      });
      s.close();
      await stopping;
    } catch (err) {
      await other.stop().catch(() => undefined);
      throw err;
    }
  });
});
