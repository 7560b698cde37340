import { expect } from 'chai';
import { abortSignalOf } from '../../../src/domain/upstream-call.js';
import { Cancellation } from '../../../src/mcp/cancellation.js';

describe('Cancellation (the per-request CallSignal of the MCP endpoints)', () => {
  it('runs each listener once, in order, with the reason; listeners removed or added after the abort never run', () => {
    const c = new Cancellation();
    const ran: string[] = [];
    const a = () => ran.push(`a:${String(c.reason)}`);
    const b = () => ran.push('b');
    const removed = () => ran.push('removed');
    c.addEventListener('abort', a);
    c.addEventListener('abort', a);
    c.addEventListener('abort', removed);
    c.addEventListener('abort', b);
    c.removeEventListener('abort', removed);
    expect(c.aborted).to.equal(false);
    c.abort('why');
    c.abort('again');
    c.addEventListener('abort', () => ran.push('late'));
    expect(ran).to.deep.equal(['a:why', 'b']);
    expect(c.aborted).to.equal(true);
    expect(c.reason).to.equal('why');
  });

  it('keeps later listeners when the first one is removed', () => {
    const c = new Cancellation();
    const ran: number[] = [];
    const one = () => ran.push(1);
    c.addEventListener('abort', one);
    c.addEventListener('abort', () => ran.push(2));
    c.removeEventListener('abort', one);
    c.addEventListener('abort', () => ran.push(3));
    c.abort();
    expect(ran).to.deep.equal([2, 3]);
    expect(c.reason).to.be.instanceOf(DOMException);
  });

  it('gives an AbortSignal only when asked, aborted with it (before or after the signal was made)', () => {
    const before = new Cancellation();
    const signal = abortSignalOf(before);
    expect(signal).to.be.instanceOf(AbortSignal);
    expect(abortSignalOf(before)).to.equal(signal);
    let seen: unknown;
    signal.addEventListener('abort', () => (seen = signal.reason));
    before.abort('stop');
    expect(signal.aborted).to.equal(true);
    expect(seen).to.equal('stop');

    const after = new Cancellation();
    after.abort('done');
    const late = abortSignalOf(after);
    expect(late.aborted).to.equal(true);
    expect(late.reason).to.equal('done');
  });

  it('abortSignalOf passes an AbortSignal through and bridges any other CallSignal', () => {
    const controller = new AbortController();
    expect(abortSignalOf(controller.signal)).to.equal(controller.signal);
    const listeners: (() => void)[] = [];
    const other = {
      aborted: false,
      reason: undefined as unknown,
      addEventListener: (_t: 'abort', l: () => void) => void listeners.push(l),
      removeEventListener: () => undefined,
    };
    const bridged = abortSignalOf(other);
    other.aborted = true;
    other.reason = 'bridged';
    listeners.forEach((l) => l());
    expect(bridged.aborted).to.equal(true);
    expect(bridged.reason).to.equal('bridged');
  });
});
