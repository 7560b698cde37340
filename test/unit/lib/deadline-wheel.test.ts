import { expect } from 'chai';
import { DeadlineWheel } from '../../../src/lib/deadline-wheel.js';

describe('DeadlineWheel (one timer for every backstop timeout)', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1000.5;
  });

  it('fires a deadline no earlier than asked and within one tick after', () => {
    const wheel = new DeadlineWheel(10, clock);
    const fired: number[] = [];
    wheel.schedule(25, () => fired.push(now));
    for (now = 1000.5; now < 1040; now += 1) wheel.sweep();
    expect(fired).to.have.length(1);
    expect(fired[0]).to.be.at.least(1025.5);
    expect(fired[0]).to.be.below(1025.5 + 10 + 1);
    expect(wheel.pending).to.equal(0);
    wheel.close();
  });

  it('never fires a cancelled deadline, and fires the others in the same slot', () => {
    const wheel = new DeadlineWheel(10, clock);
    const fired: string[] = [];
    const a = wheel.schedule(20, () => fired.push('a'));
    wheel.schedule(20, () => fired.push('b'));
    const c = wheel.schedule(50, () => fired.push('c'));
    a.cancel();
    a.cancel(); // idempotent
    expect(wheel.pending).to.equal(2);
    now += 30;
    wheel.sweep();
    expect(fired).to.deep.equal(['b']);
    c.cancel();
    now += 100;
    wheel.sweep();
    expect(fired).to.deep.equal(['b']);
    expect(wheel.pending).to.equal(0);
    wheel.close();
  });

  it('catches up on every missed slot after a stalled event loop, and a zero delay fires on the next sweep', () => {
    const wheel = new DeadlineWheel(10, clock);
    const fired: number[] = [];
    for (const ms of [0, 15, 40, 90, 500]) wheel.schedule(ms, () => fired.push(ms));
    now += 100;
    wheel.sweep();
    expect(fired).to.deep.equal([0, 15, 40, 90]);
    expect(wheel.pending).to.equal(1);
    wheel.close();
    now += 1000;
    wheel.sweep();
    expect(fired).to.deep.equal([0, 15, 40, 90]);
  });

  it('a deadline cancelled while its slot fires is not fired', () => {
    const wheel = new DeadlineWheel(10, clock);
    const fired: string[] = [];
    let b = { cancel: () => undefined } as { cancel(): void };
    wheel.schedule(5, () => {
      fired.push('a');
      b.cancel();
    });
    b = wheel.schedule(5, () => fired.push('b'));
    now += 20;
    wheel.sweep();
    expect(fired).to.deep.equal(['a']);
    wheel.close();
  });

  it('runs on the real clock: fires after the delay, and its timer stops when nothing is scheduled', async () => {
    const wheel = new DeadlineWheel(5);
    const started = performance.now();
    const at = await new Promise<number>((resolve) => wheel.schedule(30, () => resolve(performance.now())));
    expect(at - started).to.be.at.least(30);
    expect(wheel.pending).to.equal(0);
    expect((wheel as unknown as { timer: unknown }).timer).to.equal(undefined);
    const never = wheel.schedule(5, () => expect.fail('cancelled deadline fired'));
    never.cancel();
    // A cancel leaves the timer to the next sweep (no interval started and stopped per operation),
    // which stops it, as nothing is scheduled.
    await new Promise((r) => setTimeout(r, 30));
    expect((wheel as unknown as { timer: unknown }).timer).to.equal(undefined);
    wheel.close();
  });
});
