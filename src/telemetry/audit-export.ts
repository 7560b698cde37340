/**
 * The continuous audit export: every few seconds, while it holds the export lock (one instance at
 * a time), each configured sink gets the events numbered above its cursor, in order and in
 * batches, and its cursor moves once a batch is delivered. Delivery is at least once: a batch the
 * sink took just before a crash is sent again after the restart (events carry their `seq`, so a
 * receiver can drop repeats). A sink that fails is retried with exponential backoff while the
 * others go on; its backlog grows in the database (bounded by the retention period), shown by a
 * metric and a warning when it passes a threshold.
 *
 * Event numbers come from one sequence, and a number is taken before its transaction commits, so
 * the newest events may become visible out of order, and a rolled-back write leaves a hole for
 * good. A hole at the front of a sink's backlog is therefore waited for (`gapGraceMs`) before the
 * cursor moves past it: long enough for any write in flight to commit.
 */
import type { AuditEventSource, AuditExportSession } from '../domain/audit-event.js';
import type { AuditSink } from './audit-sinks.js';

export interface AuditExportOptions {
  /** Events per batch (per sink delivery). */
  readonly batchSize: number;
  /** Time between rounds. */
  readonly intervalMs: number;
  /** A backlog (events not yet delivered to a sink) past this is warned about once per crossing. */
  readonly backlogWarn: number;
  /** How long a hole in the numbering is waited for before the cursor moves past it. */
  readonly gapGraceMs?: number;
  /** First retry delay of a failed sink; doubles up to `maxBackoffMs`. */
  readonly baseBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Batches a sink may deliver in one round (catching up after an outage). */
  readonly maxBatchesPerRound?: number;
}

export interface AuditExportMetrics {
  backlog(sink: string, events: number): void;
  delivered(sink: string, events: number): void;
  failed(sink: string): void;
}

interface SinkState {
  readonly sink: AuditSink;
  failures: number;
  retryAt: number;
  warned: boolean;
  /** A hole in the numbering at `seq`, first seen at `since`. */
  gap: { seq: number; since: number } | undefined;
}

type Log = { warn(o: object, msg: string): void; info(o: object, msg: string): void; error(o: object, msg: string): void };

export class AuditExporter {
  private readonly sinks: SinkState[];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly source: AuditEventSource,
    sinks: readonly AuditSink[],
    private readonly options: AuditExportOptions,
    private readonly deps: { logger: Log; metrics?: AuditExportMetrics; now?: () => number },
  ) {
    this.sinks = sinks.map((sink) => ({ sink, failures: 0, retryAt: 0, warned: false, gap: undefined }));
  }

  get sinkNames(): string[] {
    return this.sinks.map((s) => s.sink.name);
  }

  start(): void {
    if (this.sinks.length === 0 || this.timer || this.stopped) return;
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.runOnce().finally(() => {
          if (!this.stopped) tick();
        });
      }, this.options.intervalMs);
      this.timer.unref();
    };
    tick();
  }

  /** Stops the rounds, lets the one running finish, and closes the sinks. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    for (const s of this.sinks) await s.sink.close().catch(() => undefined);
  }

  /** One round (tests call it directly); never rejects. */
  runOnce(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<void> {
    try {
      await this.source.exclusive(async (session) => {
        const head = await session.head();
        for (const state of this.sinks) await this.serve(session, state, head);
      });
    } catch (err) {
      this.deps.logger.error({ err: { message: err instanceof Error ? err.message : String(err) } }, 'audit export round failed');
    }
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  private async serve(session: AuditExportSession, state: SinkState, head: number): Promise<void> {
    const name = state.sink.name;
    let cursor = await session.cursor(name);
    this.reportBacklog(state, head - cursor);
    if (state.retryAt > this.now()) return;
    for (let batch = 0; batch < (this.options.maxBatchesPerRound ?? 20); batch += 1) {
      const events = await session.events(cursor, this.options.batchSize);
      const ready = this.contiguous(state, cursor, events);
      if (ready.length === 0) return;
      try {
        await state.sink.deliver(ready);
      } catch (err) {
        state.failures += 1;
        const delay = Math.min((this.options.baseBackoffMs ?? 1000) * 2 ** (state.failures - 1), this.options.maxBackoffMs ?? 300_000);
        state.retryAt = this.now() + delay;
        this.deps.metrics?.failed(name);
        // The message only: a sink's error object may hold request options (the webhook's headers).
        this.deps.logger.warn(
          { sink: name, failures: state.failures, retryInMs: delay, reason: err instanceof Error ? err.message : String(err) },
          'audit export to a sink failed; retrying with backoff',
        );
        return;
      }
      cursor = ready[ready.length - 1]!.seq;
      await session.advance(name, cursor);
      if (state.failures > 0) this.deps.logger.info({ sink: name }, 'audit export to the sink recovered');
      state.failures = 0;
      state.retryAt = 0;
      this.deps.metrics?.delivered(name, ready.length);
      this.reportBacklog(state, head - cursor);
      if (events.length < this.options.batchSize) return;
    }
  }

  /** The events that follow the cursor without a hole (a hole older than the grace period is passed). */
  private contiguous<T extends { seq: number }>(state: SinkState, cursor: number, events: readonly T[]): T[] {
    let next = cursor + 1;
    let count = 0;
    for (const e of events) {
      if (e.seq !== next) {
        const grace = this.options.gapGraceMs ?? 10_000;
        if (grace > 0) {
          const now = this.now();
          if (!state.gap || state.gap.seq !== next) {
            state.gap = { seq: next, since: now };
            break;
          }
          if (now - state.gap.since < grace) break;
        }
        state.gap = undefined;
      }
      count += 1;
      next = e.seq + 1;
    }
    return events.slice(0, count);
  }

  private reportBacklog(state: SinkState, backlog: number): void {
    const events = Math.max(0, backlog);
    this.deps.metrics?.backlog(state.sink.name, events);
    if (events > this.options.backlogWarn && !state.warned) {
      state.warned = true;
      this.deps.logger.warn({ sink: state.sink.name, backlog: events }, 'audit export backlog is growing: the sink is down or too slow');
    } else if (events <= this.options.backlogWarn) state.warned = false;
  }
}
