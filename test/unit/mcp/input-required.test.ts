import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { DownstreamPeer } from '../../../src/domain/upstream-call.js';
import { InputExchanges, type InputRound, type StartCall } from '../../../src/mcp/input-required.js';

/** A fake upstream call: asks the peer what `script` says, then answers with what it got. */
function upstream(script: (peer: DownstreamPeer, signal: AbortSignal) => Promise<unknown>): {
  start: StartCall;
  aborted: () => boolean;
} {
  let signal: AbortSignal | undefined;
  return {
    start: async (io) => {
      signal = io.signal;
      try {
        const result = await script(io.downstream, io.signal);
        return { response: { result }, internalError: false };
      } catch (err) {
        return { response: { error: { code: -32603, message: String((err as Error).message) } }, internalError: false };
      }
    },
    aborted: () => signal?.aborted ?? false,
  };
}

function round(params: Record<string, unknown>, capabilities: Record<string, unknown> = { elicitation: {} }, binding = 'b'): InputRound {
  return {
    id: 1,
    binding,
    params,
    capabilities,
    logLevel: undefined,
    signal: new AbortController().signal,
    write: () => undefined,
    openStream: () => undefined,
    streamIfSlow: () => undefined,
  };
}

const never = new AbortController().signal;
const options = { stateKey: randomBytes(32), waitMs: 100, gatherMs: 10, stateTtlMs: 60_000 };

describe('MCP input-required exchanges', () => {
  it('names a request by content when the upstream gives no key: the same question gets the same key', async () => {
    const exchanges = new InputExchanges(options);
    const ask = (peer: DownstreamPeer) =>
      peer.request('elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} } }, never);
    const a = await exchanges.serve(round({}), upstream(ask).start);
    const b = await exchanges.serve(round({}), upstream(ask).start);
    const keyA = Object.keys((a.result as any).inputRequests)[0]!;
    expect(keyA).to.match(/^elicitation-[0-9a-f]{12}$/);
    expect(Object.keys((b.result as any).inputRequests)).to.deep.equal([keyA]);
    exchanges.close();
  });

  it('cancels the held upstream request when no retry comes within the wait', async () => {
    const exchanges = new InputExchanges(options);
    const call = upstream((peer, signal) => peer.request('elicitation/create', { message: 'Name?' }, signal));
    const first = await exchanges.serve(round({}), call.start);
    expect((first.result as any).resultType).to.equal('input_required');
    expect(exchanges.size).to.equal(1);
    expect(call.aborted()).to.equal(false);
    await new Promise((r) => setTimeout(r, 200));
    expect(call.aborted()).to.equal(true);
    expect(exchanges.size).to.equal(0);
  });

  it('past the cap, cancels the oldest held exchange', async () => {
    const exchanges = new InputExchanges({ ...options, waitMs: 60_000, maxHeld: 2 });
    const calls = [0, 1, 2].map(() => upstream((peer, signal) => peer.request('roots/list', undefined, signal)));
    for (const c of calls) await exchanges.serve(round({}, { roots: {} }), c.start);
    expect(calls.map((c) => c.aborted())).to.deep.equal([true, false, false]);
    expect(exchanges.size).to.equal(2);
    exchanges.close();
    expect(calls.map((c) => c.aborted())).to.deep.equal([true, true, true]);
  });

  it('refuses a state signed with another key, or bound to another caller', async () => {
    const a = new InputExchanges(options);
    const b = new InputExchanges({ ...options, stateKey: randomBytes(32) });
    const call = upstream((peer, signal) => peer.request('roots/list', undefined, signal));
    const first = await a.serve(round({}, { roots: {} }), call.start);
    const requestState = (first.result as any).requestState as string;
    const foreign = await b.serve(round({ requestState }, { roots: {} }), call.start);
    expect(foreign.error?.message).to.equal('Invalid params: requestState failed its integrity check');
    const other = await a.serve(round({ requestState }, { roots: {} }, 'another caller'), call.start);
    expect(other.error?.message).to.equal('Invalid params: requestState belongs to another request');
    a.close();
  });
});
