import type { Knex } from 'knex';
import type { CallStatus } from './call-records-store.js';

/** Calls of one server over a window (from the rollups). */
export interface ServerWindowRow {
  server_id: string;
  /** A name recorded with the server's calls in the window (the registry's current name wins when it exists). */
  server_name: string | null;
  calls: number;
  errors: number;
  latency_sum_ms: number;
}

/** Calls of one hour (from the rollups). */
export interface HourRow {
  hour: Date;
  calls: number;
  errors: number;
}

/** The latency histogram of one hour: calls per bucket, index = bucket (src/lib/latency-histogram.ts). */
export interface HourHistogram {
  hour: Date;
  counts: number[];
}

/** A recorded call with the names the activity feed shows. */
export interface CallActivityRow {
  call_id: string;
  occurred_at: Date;
  endpoint: 'bundle' | 'gateway';
  bundle_id: string | null;
  bundle_name: string | null;
  server_id: string | null;
  server_name: string | null;
  tool_name: string;
  user_id: string | null;
  user_name: string | null;
  user_email: string | null;
  api_key_id: string | null;
  key_prefix: string | null;
  status: CallStatus;
  latency_ms: number;
  error: string | null;
}

/** Counts of the dashboard's headline that live in the database. */
export interface DashboardCounts {
  users_active: number;
  api_keys_active: number;
}

const num = (v: unknown): number => Number(v ?? 0);

/**
 * The dashboard's reads. Figures over time windows come from the rollups (`call_rollups`,
 * `call_latency_histogram`: at most one row per hour and server, and one per hour), never from
 * scanning call records; the activity feed reads the newest records through their time indexes.
 * Windows are `[from, to)` on whole UTC hours.
 */
export class DashboardStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * In one scan of the window's rollups: calls, failures and latency sums per server (calls
   * without a server under the nil id) and, with `byHour`, calls and failures per hour.
   */
  async windowTotals(from: Date, to: Date, { byHour }: { byHour: boolean }): Promise<{ servers: ServerWindowRow[]; hours: HourRow[] }> {
    const { rows } = (await this.db.raw(
      `select server_id, ${byHour ? 'hour' : 'null as hour'}, max(server_name) as server_name, sum(calls) as calls,
              sum(errors) as errors, sum(latency_sum_ms) as latency_sum_ms
       from call_rollups where hour >= ? and hour < ?
       group by ${byHour ? 'grouping sets ((server_id), (hour))' : 'server_id'}`,
      [from, to],
    )) as { rows: Record<string, unknown>[] };
    const servers: ServerWindowRow[] = [];
    const hours: HourRow[] = [];
    for (const r of rows) {
      if (r.server_id !== null && r.server_id !== undefined) {
        servers.push({
          server_id: String(r.server_id),
          server_name: (r.server_name as string | null) ?? null,
          calls: num(r.calls),
          errors: num(r.errors),
          latency_sum_ms: num(r.latency_sum_ms),
        });
      } else hours.push({ hour: r.hour as Date, calls: num(r.calls), errors: num(r.errors) });
    }
    return { servers, hours };
  }

  /** The latency histograms of the hours of the window that had calls. */
  async histograms(from: Date, to: Date): Promise<HourHistogram[]> {
    // As text: one string per hour parses faster than an array of numeric strings per hour.
    const rows = (await this.db('call_latency_histogram')
      .select('hour', this.db.raw('counts::text as counts'))
      .where('hour', '>=', from)
      .andWhere('hour', '<', to)) as { hour: Date; counts: string }[];
    return rows.map((r) => ({ hour: r.hour, counts: r.counts.slice(1, -1).split(',').map(Number) }));
  }

  /** Active users, and API keys that would authenticate now (active, unexpired, grace not over, owner active). */
  async counts(now: Date): Promise<DashboardCounts> {
    const { rows } = (await this.db.raw(
      `select (select count(*) from users where is_active) as users_active,
              (select count(*) from api_keys k join users u on u.id = k.user_id
                where k.is_active and u.is_active
                  and (k.expires_at is null or k.expires_at > ?)
                  and (k.grace_period_ends_at is null or k.grace_period_ends_at > ?)) as api_keys_active`,
      [now, now],
    )) as { rows: Record<string, unknown>[] };
    return { users_active: num(rows[0]?.users_active), api_keys_active: num(rows[0]?.api_keys_active) };
  }

  /** The newest call records (only failed ones with `failedOnly`), newest first (ties by call id), with names. */
  async recentCalls(input: { limit: number; failedOnly: boolean }): Promise<CallActivityRow[]> {
    const recent = this.db('call_records')
      .select(
        'call_id',
        'occurred_at',
        'endpoint',
        'bundle_id',
        'server_id',
        'server_name',
        'tool_name',
        'user_id',
        'api_key_id',
        'status',
        'latency_ms',
        'error',
      )
      .orderBy([
        { column: 'occurred_at', order: 'desc' },
        { column: 'call_id', order: 'desc' },
      ])
      .limit(input.limit);
    if (input.failedOnly) recent.whereNot('status', 'ok');
    const rows = (await this.db
      .from(recent.as('r'))
      .leftJoin('users as u', 'u.id', 'r.user_id')
      .leftJoin('bundles as b', 'b.id', 'r.bundle_id')
      .leftJoin('api_keys as k', 'k.id', 'r.api_key_id')
      .select('r.*', 'u.name as user_name', 'u.email as user_email', 'b.name as bundle_name', 'k.key_prefix as key_prefix')
      .orderBy([
        { column: 'r.occurred_at', order: 'desc' },
        { column: 'r.call_id', order: 'desc' },
      ])) as CallActivityRow[];
    return rows.map((r) => ({ ...r, latency_ms: Number(r.latency_ms) }));
  }
}
