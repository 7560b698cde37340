import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DownstreamRpcError, type DownstreamPeer } from '../../../src/domain/upstream-call.js';
import { ClientRequests } from '../../../src/mcp/client-requests.js';
import type { Session } from '../../../src/mcp/sessions.js';
import { DownstreamRouter } from '../../../src/upstream/downstream-router.js';

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/** A router installed on a stand-in client that only records the handlers it is given. */
function installed(): { router: DownstreamRouter; sample: Handler; log: (params: unknown) => void } {
  const handlers = new Map<string, Handler>();
  const notifications = new Map<string, (n: unknown) => void>();
  const client = {
    setRequestHandler: (schema: { shape: { method: { value: string } } }, h: Handler) => handlers.set(schema.shape.method.value, h),
    setNotificationHandler: (schema: { shape: { method: { value: string } } }, h: (n: unknown) => void) =>
      notifications.set(schema.shape.method.value, h),
  } as unknown as Client;
  const router = new DownstreamRouter();
  router.install(client);
  return {
    router,
    sample: (request, extra) => handlers.get('sampling/createMessage')!(request, extra),
    log: (params) => notifications.get('notifications/message')!({ method: 'notifications/message', params }),
  };
}

/** A peer that records what it is asked and answers with its own name. */
function peer(name: string, capabilities: string[] = ['sampling']): DownstreamPeer & { asked: string[]; logs: unknown[] } {
  const asked: string[] = [];
  const logs: unknown[] = [];
  return {
    asked,
    logs,
    has: (c) => capabilities.includes(c),
    request: async (method) => {
      asked.push(method);
      return { from: name };
    },
    log: (params) => void logs.push(params),
  };
}

const SAMPLE = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
const extra = { signal: new AbortController().signal };

describe('DownstreamRouter (attribution of upstream requests to callers)', () => {
  it('attributes by the async context of the call, however many calls are in flight', async () => {
    const { router, sample } = installed();
    const a = peer('a');
    const b = peer('b');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const callA = router.run(a, async () => {
      await gate;
      return sample(SAMPLE, extra);
    });
    const callB = router.run(b, () => sample(SAMPLE, extra));
    expect(await callB).to.deep.equal({ from: 'b' });
    release();
    expect(await callA).to.deep.equal({ from: 'a' });
    expect(a.asked).to.deep.equal(['sampling/createMessage']);
    expect(b.asked).to.deep.equal(['sampling/createMessage']);
  });

  it('outside any call context: the only call in flight, else refused (-32603); no call: -32601', async () => {
    const { router, sample, log } = installed();
    const a = peer('a');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const callA = router.run(a, () => gate);
    expect(await sample(SAMPLE, extra)).to.deep.equal({ from: 'a' });
    log({ level: 'info', data: 'x' });
    expect(a.logs).to.deep.equal([{ level: 'info', data: 'x' }]);
    const b = peer('b');
    const callB = router.run(b, () => gate);
    const refused = await sample(SAMPLE, extra).catch((e: { code?: number }) => e);
    expect((refused as { code?: number }).code).to.equal(-32603);
    log({ level: 'info', data: 'y' });
    expect(a.logs).to.have.length(1);
    expect(b.logs).to.deep.equal([]);
    release();
    await Promise.all([callA, callB]);
    const none = await sample(SAMPLE, extra).catch((e: { code?: number }) => e);
    expect((none as { code?: number }).code).to.equal(-32601);
  });

  it('attributes by the tag of the stream a request arrived on, with no async context, however many calls are in flight', async () => {
    const { router, sample } = installed();
    const a = peer('a');
    const b = peer('b');
    const callA = router.track(a);
    const callB = router.track(b);
    expect(router.arrived({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: SAMPLE.params }, callB)).to.equal(false);
    expect(router.arrived({ jsonrpc: '2.0', id: 8, method: 'sampling/createMessage', params: SAMPLE.params }, callA)).to.equal(false);
    expect(await sample(SAMPLE, { ...extra, requestId: 7 })).to.deep.equal({ from: 'b' });
    expect(await sample(SAMPLE, { ...extra, requestId: 8 })).to.deep.equal({ from: 'a' });
    // Each tag serves once; an untagged request with two calls in flight is refused.
    const again = await sample(SAMPLE, { ...extra, requestId: 7 }).catch((e: { code?: number }) => e);
    expect((again as { code?: number }).code).to.equal(-32603);
    callA.release();
    callB.release();
    // A released call lets go of its caller: a stale hash table of the router's long-lived set may
    // still point at it until the next full GC, and must not keep the request alive through it.
    expect(callA.peer).to.equal(undefined);
    expect(callB.peer).to.equal(undefined);
    // A tag of a call that has ended attributes nothing.
    expect(router.arrived({ jsonrpc: '2.0', id: 9, method: 'sampling/createMessage' }, callA)).to.equal(false);
    const none = await sample(SAMPLE, { ...extra, requestId: 9 }).catch((e: { code?: number }) => e);
    expect((none as { code?: number }).code).to.equal(-32601);
  });

  it('relays a tagged notifications/message to its caller at once (consumed), and leaves a malformed one to the SDK', () => {
    const { router } = installed();
    const a = peer('a');
    const b = peer('b');
    const callA = router.track(a);
    router.track(b);
    const log = (params: unknown) => router.arrived({ jsonrpc: '2.0', method: 'notifications/message', params }, callA);
    expect(log({ level: 'info', data: 'x', logger: 'l' })).to.equal(true);
    expect(log({ level: 'loud', data: 'y' })).to.equal(false);
    expect(log({ level: 'info' })).to.equal(false);
    expect(log({ level: 'info', data: 'z', logger: 5 })).to.equal(false);
    expect(log(['info'])).to.equal(false);
    expect(a.logs).to.deep.equal([{ level: 'info', data: 'x', logger: 'l' }]);
    expect(b.logs).to.deep.equal([]);
  });

  it('answers -32601 for a caller without the capability, and passes a caller error on', async () => {
    const { router, sample } = installed();
    const without = peer('w', []);
    const refused = await router.run(without, () => sample(SAMPLE, extra).catch((e: { code?: number }) => e));
    expect((refused as { code?: number }).code).to.equal(-32601);
    expect(without.asked).to.deep.equal([]);
    const failing: DownstreamPeer = {
      ...peer('f'),
      request: () => Promise.reject(new DownstreamRpcError(-1, 'User rejected sampling request')),
    };
    const failed = await router.run(failing, () => sample(SAMPLE, extra).catch((e: { code?: number; message?: string }) => e));
    expect((failed as { code?: number }).code).to.equal(-1);
    expect((failed as { message?: string }).message).to.contain('User rejected sampling request');
  });
});

function session(id: string, capabilities: Record<string, unknown> = { sampling: {} }): Session {
  return {
    id,
    scope: 's',
    credential: 'c',
    protocolVersion: '2025-11-25',
    lastSeen: 0,
    stream: null,
    sseTransport: false,
    initialized: true,
    provisional: false,
    events: null,
    clientCapabilities: capabilities,
  };
}

describe('ClientRequests (relayed requests of stateful sessions)', () => {
  it('writes the request on the call stream and settles it with the same session’s answer only', async () => {
    const requests = new ClientRequests();
    const s1 = session('s1');
    const s2 = session('s2');
    const written: Record<string, unknown>[] = [];
    const p = requests.peer({
      era: 'stateful',
      session: s1,
      capabilities: undefined,
      logLevel: undefined,
      owner: 'u1',
      write: (m) => void written.push(m),
    });
    expect(p.has('sampling')).to.equal(true);
    expect(p.has('roots')).to.equal(false);
    const pending = p.request('sampling/createMessage', { maxTokens: 1 }, new AbortController().signal);
    const id = written[0]!.id;
    expect(written[0]).to.deep.include({ jsonrpc: '2.0', method: 'sampling/createMessage', params: { maxTokens: 1 } });
    expect(requests.settle(s2, { jsonrpc: '2.0', id, result: { stolen: true } })).to.equal(false);
    expect(requests.settle(s1, { jsonrpc: '2.0', id, result: { ok: true } })).to.equal(true);
    expect(await pending).to.deep.equal({ ok: true });
    expect(requests.settle(s1, { jsonrpc: '2.0', id, result: { again: true } })).to.equal(false);
  });

  it('passes a client error on, cancels downstream when the upstream gives up, and fails what an ended session owed', async () => {
    const requests = new ClientRequests();
    const s = session('s');
    const written: Record<string, unknown>[] = [];
    const p = requests.peer({
      era: 'stateful',
      session: s,
      capabilities: undefined,
      logLevel: undefined,
      owner: 'u1',
      write: (m) => void written.push(m),
    });
    const rejected = p.request('elicitation/create', {}, new AbortController().signal);
    requests.settle(s, { jsonrpc: '2.0', id: written[0]!.id, error: { code: -32602, message: 'bad schema' } });
    const err = await rejected.catch((e: DownstreamRpcError) => e);
    expect(err).to.be.instanceOf(DownstreamRpcError);
    expect((err as DownstreamRpcError).code).to.equal(-32602);

    const upstreamGivesUp = new AbortController();
    const cancelled = p.request('sampling/createMessage', {}, upstreamGivesUp.signal);
    const id = written[1]!.id;
    upstreamGivesUp.abort();
    expect(((await cancelled.catch((e: DownstreamRpcError) => e)) as DownstreamRpcError).code).to.equal(-32800);
    expect(written[2]).to.deep.include({ method: 'notifications/cancelled' });
    expect((written[2]!.params as { requestId: unknown }).requestId).to.equal(id);

    const orphan = p.request('roots/list', undefined, new AbortController().signal);
    requests.endSession('s');
    expect(((await orphan.catch((e: DownstreamRpcError) => e)) as DownstreamRpcError).message).to.equal('The client session ended');
  });

  it('filters log messages by the session level (stateful) or the request _meta level (2026-07-28), and never relays requests in 2026-07-28', () => {
    const requests = new ClientRequests();
    const s = session('s');
    const written: Record<string, unknown>[] = [];
    const stateful = requests.peer({
      era: 'stateful',
      session: s,
      capabilities: undefined,
      logLevel: undefined,
      owner: 'u1',
      write: (m) => void written.push(m),
    });
    stateful.log({ level: 'debug', data: 1 });
    s.logLevel = 'warning';
    stateful.log({ level: 'info', data: 2 });
    stateful.log({ level: 'error', data: 3 });
    const quiet = requests.peer({
      era: 'stateless',
      session: null,
      capabilities: { sampling: {} },
      logLevel: undefined,
      owner: 'u1',
      write: (m) => void written.push(m),
    });
    quiet.log({ level: 'emergency', data: 4 });
    expect(quiet.has('sampling')).to.equal(false);
    const stateless = requests.peer({
      era: 'stateless',
      session: null,
      capabilities: {},
      logLevel: 'notice',
      owner: 'u1',
      write: (m) => void written.push(m),
    });
    stateless.log({ level: 'info', data: 5 });
    stateless.log({ level: 'notice', data: 6 });
    expect(written.map((m) => (m.params as { data: number }).data)).to.deep.equal([1, 3, 6]);
  });
});
