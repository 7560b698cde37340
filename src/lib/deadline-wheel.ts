/** One scheduled deadline; `cancel()` before it fires and it never will. */
export interface Deadline {
  cancel(): void;
}

class Entry implements Deadline {
  constructor(
    readonly wheel: DeadlineWheel,
    readonly slot: number,
    public fire: (() => void) | undefined,
  ) {}

  cancel(): void {
    if (!this.fire) return;
    this.fire = undefined;
    this.wheel.remove(this);
  }
}

/**
 * Coarse deadlines for many concurrent operations on one timer: deadlines are grouped into slots
 * of `tickMs`, and a single interval (running only while something is scheduled) fires every
 * slot that is due. A deadline fires no earlier than asked and at most one tick later. Scheduling
 * and cancelling cost a Set insertion and removal, where a `setTimeout` per operation costs a
 * timer object, its list bookkeeping and a clear.
 */
export class DeadlineWheel {
  private readonly slots = new Map<number, Set<Entry>>();
  private timer: NodeJS.Timeout | undefined;
  private size = 0;
  /** The highest slot already swept: a deadline is never put in a slot at or before it. */
  private swept: number;

  constructor(
    private readonly tickMs = 25,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(tickMs > 0)) throw new RangeError('tickMs must be positive');
    this.swept = Math.floor(this.now() / tickMs);
  }

  /** Number of deadlines scheduled and not yet fired or cancelled. */
  get pending(): number {
    return this.size;
  }

  /** Calls `fire` once, `ms` (or up to one tick more) from now, unless cancelled first. */
  schedule(ms: number, fire: () => void): Deadline {
    // The first slot whose sweep comes at or after the deadline.
    const slot = Math.max(Math.ceil((this.now() + Math.max(0, ms)) / this.tickMs), this.swept + 1);
    const entry = new Entry(this, slot, fire);
    let set = this.slots.get(slot);
    if (!set) this.slots.set(slot, (set = new Set()));
    set.add(entry);
    this.size += 1;
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.tickMs);
      this.timer.unref();
    }
    return entry;
  }

  /** Cancels everything and stops the timer. */
  close(): void {
    for (const set of this.slots.values()) for (const e of set) e.fire = undefined;
    this.slots.clear();
    this.size = 0;
    this.stop();
  }

  /** @internal */
  remove(entry: Entry): void {
    const set = this.slots.get(entry.slot);
    if (!set?.delete(entry)) return;
    this.size -= 1;
    if (set.size === 0) this.slots.delete(entry.slot);
    // The timer runs on until the next sweep finds nothing scheduled: a steady stream of short
    // operations (one call at a time) does not start and stop an interval per operation.
  }

  /** Fires every slot that is due (public for tests with a fake clock). */
  sweep(): void {
    const current = Math.floor(this.now() / this.tickMs);
    if (current <= this.swept) return;
    const due: Entry[] = [];
    // Usually one slot per sweep; after a stalled event loop, every slot missed (or a scan of the
    // live ones when that is shorter).
    if (current - this.swept <= this.slots.size) {
      for (let slot = this.swept + 1; slot <= current; slot++) this.take(slot, due);
    } else {
      for (const slot of [...this.slots.keys()]) if (slot <= current) this.take(slot, due);
    }
    this.swept = current;
    this.size -= due.length;
    if (this.size === 0) this.stop();
    for (const e of due) {
      const fire = e.fire;
      e.fire = undefined;
      fire?.();
    }
  }

  private take(slot: number, into: Entry[]): void {
    const set = this.slots.get(slot);
    if (!set) return;
    this.slots.delete(slot);
    for (const e of set) into.push(e);
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
