import type { Logger } from '../logger.js';
import type { CallRecord, CallRecordSink } from '../domain/call-records.js';
import { databaseFailureReason, isConnectionError, isResourceExhausted } from '../lib/database-errors.js';

/** The longest wait between two attempts while writes keep failing (the wait doubles from the flush interval). */
const MAX_RETRY_MS = 30_000;

/** Whether records are being written, and why not when they are not. */
export interface CallRecorderHealth {
  readonly ok: boolean;
  /** Why writes fail (`database out of disk space`, `database unreachable`), while they do. */
  readonly reason?: string;
  /** Since when writes fail (ms since the epoch). */
  readonly since?: number;
  /** Records waiting to be written. */
  readonly pending: number;
}

export interface CallRecorderOptions {
  /** Longest a record waits before it is written. */
  flushIntervalMs?: number;
  /** Records per insert statement; a full batch is written at once. */
  batchSize?: number;
  /** Records kept while the database is unreachable; older ones are dropped beyond this. */
  maxBuffered?: number;
  /** Sees every record as it is queued (the metrics' tool-call counters); must not throw or block. */
  observe?: (record: CallRecord) => void;
}

/**
 * Records every `tools/call` off the request path: `record` only pushes to a buffer; a timer (or
 * a full batch) writes the buffer in batches. A write that fails because the database is
 * unreachable or out of room (a full disk) keeps the records and is retried with a doubling wait
 * (up to MAX_RETRY_MS), so an outage loses nothing short of `maxBuffered`; the cause is logged and
 * reported by `health()` (readiness, metrics) until a write succeeds again. A write the database
 * refuses for its content is split until the refused records are found: they are dropped and
 * logged, so one bad record never blocks the rest.
 */
export class CallRecorder {
  private buffer: CallRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly maxBuffered: number;
  private stopped = false;
  private dropped = 0;
  private readonly observe: ((record: CallRecord) => void) | undefined;
  private refused = 0;
  /** Why writes fail, and since when; undefined while they succeed. */
  private failing: { reason: string; since: number } | undefined;
  private retryMs: number;

  constructor(
    private readonly store: CallRecordSink,
    private readonly logger: Logger,
    options: CallRecorderOptions = {},
  ) {
    this.intervalMs = options.flushIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 100_000;
    this.observe = options.observe;
    this.retryMs = this.intervalMs;
  }

  /** Whether records are being written; while they are not, why and since when. */
  health(): CallRecorderHealth {
    return this.failing
      ? { ok: false, reason: this.failing.reason, since: this.failing.since, pending: this.buffer.length }
      : { ok: true, pending: this.buffer.length };
  }

  /** Queues one record (no I/O). */
  record(record: CallRecord): void {
    this.observe?.(record);
    this.buffer.push(record);
    if (this.buffer.length > this.maxBuffered) {
      this.buffer.shift();
      this.dropped += 1;
    }
    if (this.buffer.length >= this.batchSize) {
      // A write in flight takes the next full batch when it is done (see `writeAll`).
      if (!this.flushing) void this.drain(false);
    } else if (!this.timer && !this.stopped) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.intervalMs);
      this.timer.unref();
    }
  }

  /** Records waiting to be written. */
  get pending(): number {
    return this.buffer.length;
  }

  /** Writes everything buffered now (one write at a time). */
  flush(): Promise<void> {
    return this.drain(true);
  }

  /** Writes what is buffered (`all`), or only full batches, after any write in flight. */
  private async drain(all: boolean): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length < (all ? 1 : this.batchSize)) return;
    this.flushing = this.writeAll(all).finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /**
   * Writes batches while there is a full one (or, with `all`, anything). Under load, the records
   * that arrive during a write wait for the next full batch or the timer rather than going out at
   * once as a small batch: each statement has a fixed cost (a round trip, parse and plan, a
   * commit) that back-to-back small batches would pay for a few records each.
   */
  private async writeAll(all: boolean): Promise<void> {
    while (this.buffer.length >= (all ? 1 : this.batchSize)) {
      const batch = this.buffer.splice(0, this.batchSize);
      let unwritten: CallRecord[] = [];
      let cause: unknown;
      try {
        await this.store.insertMany(batch);
      } catch (err) {
        cause = err;
        unwritten = passing(err) ? batch : await this.isolateRefused(batch, (e) => (cause = e));
      }
      if (unwritten.length) {
        this.buffer.unshift(...unwritten);
        const reason = databaseFailureReason(cause);
        if (this.failing?.reason !== reason) {
          this.failing = { reason, since: Date.now() };
          this.logger.warn({ pending: this.buffer.length, reason }, `call records not written yet (${reason}); will retry`);
        }
        if (!this.stopped && !this.timer) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            void this.flush();
          }, this.retryMs);
          this.timer.unref();
          this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
        }
        return;
      }
      if (this.failing) {
        this.logger.info({ reason: this.failing.reason, failedForMs: Date.now() - this.failing.since }, 'call records are written again');
        this.failing = undefined;
      }
      this.retryMs = this.intervalMs;
    }
    if (this.refused) {
      this.logger.error({ refused: this.refused }, 'call records refused by the database were dropped');
      this.refused = 0;
    }
    if (this.dropped) {
      this.logger.warn({ dropped: this.dropped }, 'call records dropped while the database was unreachable');
      this.dropped = 0;
    }
  }

  /**
   * Writes a refused batch in halves until the refused records stand alone, and drops those.
   * Returns the records not written because the database became unreachable meanwhile.
   */
  private async isolateRefused(batch: CallRecord[], noteCause: (err: unknown) => void): Promise<CallRecord[]> {
    if (batch.length === 1) {
      this.refused += 1;
      return [];
    }
    const middle = Math.ceil(batch.length / 2);
    const halves = [batch.slice(0, middle), batch.slice(middle)];
    for (let i = 0; i < halves.length; i += 1) {
      const half = halves[i]!;
      try {
        await this.store.insertMany(half);
      } catch (err) {
        if (passing(err)) noteCause(err);
        const rest = passing(err) ? half : await this.isolateRefused(half, noteCause);
        if (rest.length) return [...rest, ...halves.slice(i + 1).flat()];
      }
    }
    return [];
  }
}

/** A failure that passes (an outage, a full disk): the records are kept and retried, not dropped. */
function passing(err: unknown): boolean {
  return isConnectionError(err) || isResourceExhausted(err);
}
