import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../logger.js';
import type { RetentionStore } from '../../stores/retention-store.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What one purge run deleted. */
export interface PurgeResult {
  /** Records of the hours before this one were deleted (whole UTC hours). */
  callRecordsBefore: Date;
  callRecords: number;
  rollupRows: number;
  activityBefore: Date;
  activityEntries: number;
  /** Delete statements run (each bounded by the batch size). */
  batches: number;
}

export interface RetentionOptions {
  /** Rows per delete statement. */
  batchSize?: number;
  /** Pause between two batches, so other writers get the table (ms). */
  pauseMs?: number;
  /** Time between runs (ms). */
  intervalMs?: number;
  /** Reclaim the freed space after deleting (the embedded database, which has no autovacuum). */
  vacuum?: boolean;
}

/**
 * The retention purge: deletes call records older than `log_retention_days` (whole UTC hours, so
 * the rollups of exactly those hours go with them and the dashboard never counts a deleted call)
 * and activity entries older than `activity_log_retention_days`, in bounded batches, on one
 * instance at a time (the store's advisory lock). Runs every 10 minutes; retention changes apply
 * at the next run.
 */
export class RetentionService {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private readonly batchSize: number;
  private readonly pauseMs: number;
  private readonly intervalMs: number;

  constructor(
    private readonly deps: {
      store: RetentionStore;
      settings: { readonly current: { readonly log_retention_days: number; readonly activity_log_retention_days: number } };
      clock: Clock;
      logger: Logger;
    },
    private readonly options: RetentionOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 2000;
    this.pauseMs = options.pauseMs ?? 10;
    this.intervalMs = options.intervalMs ?? 10 * 60_000;
  }

  /** Purges every `intervalMs` (first run after one interval). */
  start(): void {
    this.stopped = false;
    this.timer ??= setInterval(() => {
      if (this.running) return;
      this.running = this.purge()
        .catch((err: unknown) =>
          this.deps.logger.warn({ reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' }, 'retention purge failed'),
        )
        .finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer; a run in progress stops after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run now. `undefined` when another instance is purging (it holds the lock). */
  async purge(): Promise<PurgeResult | undefined> {
    const now = this.deps.clock.now().getTime();
    const { log_retention_days: logDays, activity_log_retention_days: activityDays } = this.deps.settings.current;
    const callRecordsBefore = new Date(Math.floor((now - logDays * DAY_MS) / HOUR_MS) * HOUR_MS);
    const activityBefore = new Date(now - activityDays * DAY_MS);
    const result = await this.deps.store.exclusive(async (deletes) => {
      const out: PurgeResult = { callRecordsBefore, callRecords: 0, rollupRows: 0, activityBefore, activityEntries: 0, batches: 0 };
      out.callRecords = await this.inBatches(out, (limit) => deletes.callRecords(callRecordsBefore, limit));
      out.rollupRows = await deletes.rollups(callRecordsBefore);
      out.activityEntries = await this.inBatches(out, (limit) => deletes.activity(activityBefore, limit));
      if (this.options.vacuum && out.callRecords + out.rollupRows + out.activityEntries > 0) await deletes.vacuum();
      return out;
    });
    if (result && result.callRecords + result.activityEntries > 0) {
      this.deps.logger.info(
        {
          callRecords: result.callRecords,
          rollupRows: result.rollupRows,
          activityEntries: result.activityEntries,
          batches: result.batches,
        },
        'retention purge',
      );
    }
    return result;
  }

  private async inBatches(out: PurgeResult, batch: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await batch(this.batchSize);
      out.batches += 1;
      total += n;
      if (n < this.batchSize || this.stopped) return total;
      await new Promise((r) => setTimeout(r, this.pauseMs));
    }
  }
}
