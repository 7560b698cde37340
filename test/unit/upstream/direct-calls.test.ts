import { expect } from 'chai';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DeadlineWheel } from '../../../src/lib/deadline-wheel.js';
import { DirectCalls } from '../../../src/upstream/direct-calls.js';
import type { RawMessageSource } from '../../../src/upstream/raw-message.js';

/** A transport that records what is sent and lets the test deliver what the upstream answers. */
class FakeTransport implements Transport, RawMessageSource {
  sent: Record<string, unknown>[] = [];
  fail: Error | undefined;
  onmessage?: (message: JSONRPCMessage) => void;
  onRawMessage?: (text: string, message: Record<string, unknown>) => boolean;
  /** What reached the SDK's handler (not claimed). */
  toSdk: Record<string, unknown>[] = [];

  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.fail) throw this.fail;
    this.sent.push(message as Record<string, unknown>);
  }
  /** Delivers a message as a transport with the raw seam does: raw first, then `onmessage`. */
  deliverRaw(text: string): void {
    const message = JSON.parse(text) as Record<string, unknown>;
    if (this.onRawMessage?.(text, message)) return;
    this.onmessage?.(message as JSONRPCMessage);
  }
}

function setup() {
  const wheel = new DeadlineWheel(5);
  const calls = new DirectCalls(wheel);
  const transport = new FakeTransport();
  transport.onmessage = (m) => transport.toSdk.push(m as Record<string, unknown>);
  calls.attach(transport);
  return { wheel, calls, transport };
}

describe('DirectCalls (requests sent without the SDK client, for a cheap hot path)', () => {
  it('claims the answer to its request with its text, and leaves every other message to the SDK', async () => {
    const { wheel, calls, transport } = setup();
    const pending = calls.request(transport, 'tools/call', { name: 'echo' }, 10_000);
    const [sent] = transport.sent;
    expect(sent).to.include({ jsonrpc: '2.0', method: 'tools/call' });
    expect(sent!.id).to.be.a('string');
    transport.deliverRaw('{"jsonrpc":"2.0","id":0,"result":{}}'); // the SDK's own request
    transport.deliverRaw('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}');
    const text = `{"jsonrpc":"2.0","id":${JSON.stringify(sent!.id)},"result":{"content":[]}}`;
    transport.deliverRaw(text);
    const reply = await pending;
    expect(reply.text).to.equal(text);
    expect(reply.message.result).to.deep.equal({ content: [] });
    expect(transport.toSdk.map((m) => m.id ?? m.method)).to.deep.equal([0, 'notifications/progress']);
    expect(calls.size).to.equal(0);
    wheel.close();
  });

  it('takes answers arriving through onmessage too (a transport without the raw seam), without text', async () => {
    const { wheel, calls, transport } = setup();
    const pending = calls.request(transport, 'tools/call', {}, 10_000);
    transport.onmessage!({ jsonrpc: '2.0', id: transport.sent[0]!.id as string, result: { content: [] } });
    const reply = await pending;
    expect(reply.text).to.equal(undefined);
    expect(transport.toSdk).to.have.length(0);
    wheel.close();
  });

  it('times out with the SDK timeout error and cancels the request upstream; a late answer goes to the SDK', async () => {
    const { wheel, calls, transport } = setup();
    const err = await calls.request(transport, 'tools/call', {}, 20).then(
      () => expect.fail('resolved'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(McpError);
    expect((err as McpError).code).to.equal(ErrorCode.RequestTimeout);
    const id = transport.sent[0]!.id;
    expect(transport.sent[1]).to.deep.equal({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'timeout' },
    });
    transport.deliverRaw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`);
    expect(transport.toSdk).to.have.length(1);
    expect(wheel.pending).to.equal(0);
    wheel.close();
  });

  it('an aborted signal cancels the request upstream and rejects with its reason; an aborted one is never sent', async () => {
    const { wheel, calls, transport } = setup();
    const controller = new AbortController();
    const pending = calls.request(transport, 'tools/call', {}, 10_000, controller.signal);
    const reason = new Error('caller went away');
    controller.abort(reason);
    expect(await pending.catch((e: unknown) => e)).to.equal(reason);
    expect(transport.sent[1]).to.include({ method: 'notifications/cancelled' });
    expect(wheel.pending).to.equal(0);
    const before = transport.sent.length;
    expect(await calls.request(transport, 'tools/call', {}, 10_000, controller.signal).catch((e: unknown) => e)).to.equal(reason);
    expect(transport.sent).to.have.length(before);
    wheel.close();
  });

  it('a settled request leaves nothing of itself in its map entry (a stale hash table must not keep the caller alive)', async () => {
    const { wheel, calls, transport } = setup();
    // The map is private; what it held is what a stale copy of its table would still point to.
    const pending = (calls as unknown as { pending: Map<string, { resolve: unknown; reject: unknown }> }).pending;
    const answered = calls.request(transport, 'tools/call', {}, 10_000);
    const failed = calls.request(transport, 'tools/call', {}, 10_000);
    const entries = [...pending.values()];
    expect(entries).to.have.length(2);
    const closures = entries.map((e) => [e.resolve, e.reject]);
    transport.deliverRaw(`{"jsonrpc":"2.0","id":${JSON.stringify(transport.sent[0]!.id)},"result":{"content":[]}}`);
    calls.failAll();
    await answered;
    await failed.catch(() => undefined);
    expect(pending.size).to.equal(0);
    entries.forEach((e, i) => {
      expect(e.resolve).to.not.equal(closures[i]![0]);
      expect(e.reject).to.not.equal(closures[i]![1]);
      expect(e.resolve).to.equal(e.reject); // one shared no-op
    });
    wheel.close();
  });

  it('a failed send rejects at once; failAll rejects what is in flight with "connection closed"', async () => {
    const { wheel, calls, transport } = setup();
    transport.fail = new Error('EPIPE');
    expect(((await calls.request(transport, 'tools/call', {}, 10_000).catch((e: unknown) => e)) as Error).message).to.equal('EPIPE');
    transport.fail = undefined;
    const a = calls.request(transport, 'tools/call', {}, 10_000);
    const b = calls.request(transport, 'tools/call', {}, 10_000);
    calls.failAll();
    for (const p of [a, b]) expect(((await p.catch((e: unknown) => e)) as McpError).code).to.equal(ErrorCode.ConnectionClosed);
    expect(calls.size).to.equal(0);
    expect(wheel.pending).to.equal(0);
    wheel.close();
  });
});
