import type { Knex } from 'knex';

/** The deletions of one purge run, on one connection. */
export interface RetentionDeletes {
  /** Deletes up to `limit` call records older than `before`; returns how many. */
  callRecords(before: Date, limit: number): Promise<number>;
  /** Deletes the rollups of the hours before `hour` (an hour boundary); returns the rows deleted. */
  rollups(hour: Date): Promise<number>;
  /** Deletes up to `limit` activity entries older than `before`; returns how many. */
  activity(before: Date, limit: number): Promise<number>;
  /** Returns the freed space to the tables (the embedded database has no autovacuum). */
  vacuum(): Promise<void>;
}

const deletedCount = (result: unknown): number => Number((result as { rowCount?: number | null }).rowCount ?? 0);

/**
 * Deletion of expired call records, rollups and activity entries, in bounded batches (each its own
 * short statement, so the hot tables are never locked for long). On PostgreSQL a run holds a
 * session advisory lock (per schema) on a connection of its own, so one instance purges at a time;
 * the embedded database belongs to one process and needs none.
 */
export class RetentionStore {
  constructor(
    private readonly knex: Knex,
    private readonly options: { advisoryLock: boolean },
  ) {}

  /**
   * Runs `fn` while holding the purge lock; resolves `undefined` without running it when another
   * instance holds the lock.
   */
  async exclusive<T>(fn: (deletes: RetentionDeletes) => Promise<T>): Promise<T | undefined> {
    if (!this.options.advisoryLock) return fn(this.deletes((sql, bindings = []) => this.knex.raw(sql, bindings as Knex.RawBinding[])));
    // A session lock lives on one connection: take one from the pool for the whole run.
    const client = this.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
    const connection = await client.acquireConnection();
    const run = (sql: string, bindings: readonly unknown[] = []) =>
      this.knex.raw(sql, bindings as Knex.RawBinding[]).connection(connection);
    try {
      const { rows } = (await run("select pg_try_advisory_lock(hashtext(current_schema() || ':toolgate.retention')) as locked")) as {
        rows: { locked: boolean }[];
      };
      if (!rows[0]?.locked) return undefined;
      try {
        return await fn(this.deletes(run));
      } finally {
        await run("select pg_advisory_unlock(hashtext(current_schema() || ':toolgate.retention'))");
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }

  private deletes(run: (sql: string, bindings?: readonly unknown[]) => Promise<unknown>): RetentionDeletes {
    return {
      callRecords: async (before, limit) =>
        deletedCount(
          await run(
            'delete from call_records where id in (select id from call_records where occurred_at < ? order by occurred_at limit ?)',
            [before, limit],
          ),
        ),
      rollups: async (hour) =>
        deletedCount(await run('delete from call_rollups where hour < ?', [hour])) +
        deletedCount(await run('delete from call_latency_histogram where hour < ?', [hour])),
      activity: async (before, limit) =>
        deletedCount(
          await run(
            'delete from activity_log where id in (select id from activity_log where occurred_at < ? order by occurred_at limit ?)',
            [before, limit],
          ),
        ),
      vacuum: async () => {
        await run('vacuum call_records, call_rollups, call_latency_histogram, activity_log');
      },
    };
  }
}
