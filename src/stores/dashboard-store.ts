import type { Knex } from 'knex';
import type { CallStatus } from '../domain/call-records.js';
import type { Interception } from '../domain/guardrails.js';

/** Calls of one server over a window (from the rollups). */
export interface ServerWindowRow {
  server_id: string;
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

/** A recorded call as the activity feed reads it. */
export interface CallActivityRow {
  call_id: string;
  occurred_at: Date;
  endpoint: 'bundle' | 'gateway';
  bundle_id: string | null;
  server_id: string | null;
  server_name: string | null;
  tool_name: string;
  user_id: string | null;
  api_key_id: string | null;
  status: CallStatus;
  latency_ms: number;
  error: string | null;
  /** Values the guardrails redacted in the call. */
  redactions: number;
  /** What guardrail interceptors decided (null: none was asked). */
  interceptions: Interception[] | null;
}

/** Names of the users, bundles and keys a page of activity refers to. */
export interface ActivityNames {
  users: Map<string, { name: string; email: string }>;
  bundles: Map<string, string>;
  keyPrefixes: Map<string, string>;
}

/** Counts of the dashboard's headline that live in the database. */
export interface DashboardCounts {
  users_active: number;
  api_keys_active: number;
}

/** The figures of the overview, read in one statement. */
export interface OverviewFigures {
  servers: ServerWindowRow[];
  histograms: HourHistogram[];
  counts: DashboardCounts;
}

/** The figures of the charts, read in one statement. */
export interface ChartFigures {
  servers: ServerWindowRow[];
  hours: HourRow[];
  histograms: HourHistogram[];
}

/** Per server over the window ($1, $2). */
const SERVERS_JSON = `(select coalesce(json_agg(s), '[]') from (
    select server_id, sum(calls) as calls, sum(errors) as errors, sum(latency_sum_ms) as latency_sum_ms
    from call_rollups where hour >= :from and hour < :to group by server_id) s)`;
const HOURS_JSON = `(select coalesce(json_agg(h), '[]') from (
    select hour, sum(calls) as calls, sum(errors) as errors
    from call_rollups where hour >= :from and hour < :to group by hour) h)`;
const HISTOGRAMS_JSON = `(select coalesce(json_agg(h), '[]') from (
    select hour, counts from call_latency_histogram where hour >= :from and hour < :to) h)`;
const COUNTS_JSON = `json_build_object(
    'users_active', (select count(*) from users where is_active),
    'api_keys_active', (select count(*) from api_keys k join users u on u.id = k.user_id
       where k.is_active and u.is_active and (k.expires_at is null or k.expires_at > :now)
         and (k.grace_period_ends_at is null or k.grace_period_ends_at > :now)))`;

const num = (v: unknown): number => Number(v ?? 0);
/** A json column: parsed by the driver (pg, PGlite), or text. */
const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

function servers(rows: Record<string, unknown>[]): ServerWindowRow[] {
  return rows.map((r) => ({
    server_id: String(r.server_id),
    calls: num(r.calls),
    errors: num(r.errors),
    latency_sum_ms: num(r.latency_sum_ms),
  }));
}

function histograms(rows: { hour: string; counts: (number | string)[] }[]): HourHistogram[] {
  return rows.map((r) => ({ hour: new Date(r.hour), counts: r.counts.map(Number) }));
}

/**
 * The dashboard's reads. Figures over time windows come from the rollups (`call_rollups`,
 * `call_latency_histogram`: at most one row per hour and server, and one per hour), never from
 * scanning call records; the activity feed reads the newest records through their time indexes.
 * Each operation is one statement answering one JSON document: the embedded database converts a
 * JSON value far faster than rows of many columns. Windows are `[from, to)` on whole UTC hours.
 */
export class DashboardStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** Per-server totals and hourly histograms of the window, and the user and key counts at `now`. */
  async overview(from: Date, to: Date, now: Date): Promise<OverviewFigures> {
    const { rows } = (await this.db.raw(`select ${SERVERS_JSON} as servers, ${HISTOGRAMS_JSON} as histograms, ${COUNTS_JSON} as counts`, {
      from,
      to,
      now,
    })) as { rows: Record<string, unknown>[] };
    const r = rows[0]!;
    const counts = json<Record<string, unknown>>(r.counts);
    return {
      servers: servers(json(r.servers)),
      histograms: histograms(json(r.histograms)),
      counts: { users_active: num(counts.users_active), api_keys_active: num(counts.api_keys_active) },
    };
  }

  /** Per-server totals, per-hour totals and hourly histograms of the window. */
  async charts(from: Date, to: Date): Promise<ChartFigures> {
    const { rows } = (await this.db.raw(`select ${SERVERS_JSON} as servers, ${HOURS_JSON} as hours, ${HISTOGRAMS_JSON} as histograms`, {
      from,
      to,
    })) as { rows: Record<string, unknown>[] };
    const r = rows[0]!;
    return {
      servers: servers(json(r.servers)),
      hours: json<Record<string, unknown>[]>(r.hours).map((h) => ({
        hour: new Date(String(h.hour)),
        calls: num(h.calls),
        errors: num(h.errors),
      })),
      histograms: histograms(json(r.histograms)),
    };
  }

  /** The newest call records (only failed ones with `failedOnly`), newest first (ties by call id). */
  async recentCalls(input: { limit: number; failedOnly: boolean }): Promise<CallActivityRow[]> {
    const { rows } = (await this.db.raw(
      `select coalesce(json_agg(r order by r.occurred_at desc, r.call_id desc), '[]') as calls from (
         select call_id, occurred_at, endpoint, bundle_id, server_id, server_name, tool_name, user_id, api_key_id, status,
                latency_ms, error, redactions, interceptions
         from call_records ${input.failedOnly ? "where status <> 'ok'" : ''}
         order by occurred_at desc, call_id desc limit :limit) r`,
      { limit: input.limit },
    )) as { rows: { calls: unknown }[] };
    return json<(Omit<CallActivityRow, 'occurred_at'> & { occurred_at: string })[]>(rows[0]!.calls).map((r) => ({
      ...r,
      occurred_at: new Date(r.occurred_at),
      latency_ms: Number(r.latency_ms),
      redactions: Number(r.redactions ?? 0),
      interceptions: r.interceptions ?? null,
    }));
  }

  /**
   * The names behind some ids, in one statement (a join per feed row would cost more than the
   * feed itself): users (name, email), bundles (name), API keys (visible prefix).
   */
  async names(ids: { users: string[]; bundles: string[]; keys: string[] }): Promise<ActivityNames> {
    const out: ActivityNames = { users: new Map(), bundles: new Map(), keyPrefixes: new Map() };
    if (!ids.users.length && !ids.bundles.length && !ids.keys.length) return out;
    const { rows } = (await this.db.raw(
      `select (select coalesce(json_agg(json_build_array(id, name, email)), '[]') from users where id = any(?::uuid[])) as users,
              (select coalesce(json_agg(json_build_array(id, name)), '[]') from bundles where id = any(?::uuid[])) as bundles,
              (select coalesce(json_agg(json_build_array(id, key_prefix)), '[]') from api_keys where id = any(?::uuid[])) as keys`,
      [ids.users, ids.bundles, ids.keys],
    )) as { rows: Record<string, unknown>[] };
    const r = rows[0]!;
    for (const [id, name, email] of json<[string, string, string][]>(r.users)) out.users.set(id, { name, email });
    for (const [id, name] of json<[string, string][]>(r.bundles)) out.bundles.set(id, name);
    for (const [id, prefix] of json<[string, string][]>(r.keys)) out.keyPrefixes.set(id, prefix);
    return out;
  }

  /** The latest name recorded with the calls of each of these servers (for servers no longer registered). */
  async recordedServerNames(serverIds: string[]): Promise<Map<string, string>> {
    if (!serverIds.length) return new Map();
    const { rows } = (await this.db.raw(
      `select distinct on (server_id) server_id, server_name from call_rollups
       where server_id = any(?::uuid[]) and server_name is not null order by server_id, hour desc`,
      [serverIds],
    )) as { rows: { server_id: string; server_name: string }[] };
    return new Map(rows.map((r) => [String(r.server_id), r.server_name]));
  }
}
