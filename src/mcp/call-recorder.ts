import type { Logger } from '../logger.js';
import type { CallRecord, CallRecordSink } from '../domain/call-records.js';

export interface CallRecorderOptions {
  /** Longest a record waits before it is written. */
  flushIntervalMs?: number;
  /** Records per insert statement; a full batch is written at once. */
  batchSize?: number;
  /** Records kept while the database is unreachable; older ones are dropped beyond this. */
  maxBuffered?: number;
}

/**
 * Records every `tools/call` off the request path: `record` only pushes to a buffer; a timer (or
 * a full batch) writes the buffer in batches. A failed write keeps the records for the next
 * attempt (bounded), so a database outage loses nothing short of `maxBuffered`.
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

  constructor(
    private readonly store: CallRecordSink,
    private readonly logger: Logger,
    options: CallRecorderOptions = {},
  ) {
    this.intervalMs = options.flushIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 100_000;
  }

  /** Queues one record (no I/O). */
  record(record: CallRecord): void {
    this.buffer.push(record);
    if (this.buffer.length > this.maxBuffered) {
      this.buffer.shift();
      this.dropped += 1;
    }
    if (this.buffer.length >= this.batchSize) void this.flush();
    else if (!this.timer && !this.stopped) {
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

  /** Writes everything buffered now (one flush at a time). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    this.flushing = this.writeAll().finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, this.batchSize);
      try {
        await this.store.insertMany(batch);
      } catch (err) {
        this.buffer.unshift(...batch);
        this.logger.warn({ err, pending: this.buffer.length }, 'call records not written yet; will retry');
        if (!this.stopped && !this.timer) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            void this.flush();
          }, this.intervalMs);
          this.timer.unref();
        }
        return;
      }
    }
    if (this.dropped) {
      this.logger.warn({ dropped: this.dropped }, 'call records dropped while the database was unreachable');
      this.dropped = 0;
    }
  }
}
