import type { components } from '../generated/openapi.js';
import type { Clock } from '../lib/clock.js';
import { addHistogram, histogramPercentile } from '../lib/latency-histogram.js';
import type { ActivityStore, DbActivityRow } from '../stores/activity-store.js';
import { NO_SERVER_ID } from '../stores/call-records-store.js';
import type { CallActivityRow, DashboardStore, ServerWindowRow } from '../stores/dashboard-store.js';
import type { InMemoryCatalog } from './in-memory-catalog.js';
import type { ServersService } from './servers-service.js';

type Schemas = components['schemas'];
export type DashboardResponse = Schemas['DashboardResponse'];
export type DashboardCharts = Schemas['DashboardCharts'];
export type ActivityResponse = Schemas['ActivityResponse'];
export type ActivityEntry = Schemas['ActivityEntry'];
export type ActivityFilter = Schemas['ActivityFilter'];
type ServerHealthEntry = Schemas['ServerHealthEntry'];

/** Entries in the activity feed. */
export const ACTIVITY_LIMIT = 50;
/** Servers in `top_servers`. */
export const TOP_SERVERS = 10;
const HOUR_MS = 3_600_000;
/** Hourly buckets in a window: the current hour and the 23 before it. */
export const WINDOW_HOURS = 24;

export interface DashboardServiceDeps {
  store: DashboardStore;
  activity: ActivityStore;
  servers: Pick<ServersService, 'list' | 'status'>;
  catalog: Pick<InMemoryCatalog, 'serverIds' | 'toolsOfServer' | 'serverState'>;
  bundles: { readonly size: number };
  clock: Clock;
}

/** The 24 UTC hours ending with the current one: `[from, to)`. */
export function chartWindow(now: Date): { from: Date; to: Date } {
  const to = (Math.floor(now.getTime() / HOUR_MS) + 1) * HOUR_MS;
  return { from: new Date(to - WINDOW_HOURS * HOUR_MS), to: new Date(to) };
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
/** Newest first; ties by id, descending (a total order, the same on every call). */
const newestFirst = (a: ActivityEntry, b: ActivityEntry): number =>
  a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/**
 * The admin dashboard: headline statistics, upstream health, the activity feed and the charts.
 * Every figure over time comes from the hourly rollups (a few thousand rows at most, whatever
 * the number of call records); health and catalog counts come from memory. The window of every
 * "last 24 hours" figure is the chart window: the current UTC hour and the 23 before it.
 */
export class DashboardService {
  constructor(private readonly deps: DashboardServiceDeps) {}

  async overview(filter: ActivityFilter): Promise<DashboardResponse> {
    const now = this.deps.clock.now();
    const { from, to } = chartWindow(now);
    const [{ servers }, histograms, counts, health, activity] = await Promise.all([
      this.deps.store.windowTotals(from, to, { byHour: false }),
      this.deps.store.histograms(from, to),
      this.deps.store.counts(now),
      this.health(),
      this.activity(filter),
    ]);
    const latency = histograms.reduce((all, h) => addHistogram(all, h.counts), [] as number[]);
    const calls = servers.reduce((n, s) => n + s.calls, 0);
    const errors = servers.reduce((n, s) => n + s.errors, 0);
    let toolsTotal = 0;
    let toolsEnabled = 0;
    for (const id of this.deps.catalog.serverIds()) {
      for (const tool of this.deps.catalog.toolsOfServer(id)) {
        toolsTotal += 1;
        if (tool.enabled) toolsEnabled += 1;
      }
    }
    return {
      stats: {
        servers_total: health.length,
        servers_connected: health.filter((h) => h.status === 'connected').length,
        servers_error: health.filter((h) => h.status === 'error').length,
        tools_total: toolsTotal,
        tools_enabled: toolsEnabled,
        bundles_total: this.deps.bundles.size,
        users_total: counts.users_active,
        api_keys_active: counts.api_keys_active,
        calls_24h: calls,
        errors_24h: errors,
        error_rate_24h: calls === 0 ? 0 : errors / calls,
        p50_latency_ms_24h: histogramPercentile(latency, 50),
        p95_latency_ms_24h: histogramPercentile(latency, 95),
      },
      health,
      activity,
      top_servers: this.ranked(servers)
        .slice(0, TOP_SERVERS)
        .map((s) => ({
          server_id: s.server_id,
          name: this.serverName(s),
          calls: s.calls,
          errors: s.errors,
          avg_latency_ms: round3(s.latency_sum_ms / s.calls),
        })),
      generated_at: now.toISOString(),
    };
  }

  async charts(): Promise<DashboardCharts> {
    const { from, to } = chartWindow(this.deps.clock.now());
    const [{ servers, hours }, histograms] = await Promise.all([
      this.deps.store.windowTotals(from, to, { byHour: true }),
      this.deps.store.histograms(from, to),
    ]);
    const byHour = new Map(hours.map((h) => [h.hour.getTime(), h]));
    const histogramOf = new Map(histograms.map((h) => [h.hour.getTime(), h.counts]));
    const buckets = Array.from({ length: WINDOW_HOURS }, (_, i) => from.getTime() + i * HOUR_MS);
    return {
      window: { from: from.toISOString(), to: to.toISOString(), bucket_seconds: 3600 },
      tool_calls: buckets.map((t) => ({
        bucket: new Date(t).toISOString(),
        calls: byHour.get(t)?.calls ?? 0,
        errors: byHour.get(t)?.errors ?? 0,
      })),
      latency: buckets.map((t) => {
        const counts = histogramOf.get(t) ?? [];
        return {
          bucket: new Date(t).toISOString(),
          p50_ms: histogramPercentile(counts, 50),
          p95_ms: histogramPercentile(counts, 95),
          p99_ms: histogramPercentile(counts, 99),
        };
      }),
      server_load: this.ranked(servers).map((s) => ({ server_id: s.server_id, name: this.serverName(s), calls: s.calls })),
    };
  }

  /** The newest 50 entries matching the filter, newest first. */
  async activity(filter: ActivityFilter): Promise<ActivityResponse> {
    const { store, activity } = this.deps;
    const failedOnly = filter === 'errors';
    const [calls, admin] = await Promise.all([
      filter === 'admin' ? [] : store.recentCalls({ limit: ACTIVITY_LIMIT, failedOnly }),
      filter === 'tools' ? [] : activity.recent({ limit: ACTIVITY_LIMIT, failedOnly }),
    ]);
    const items = [...calls.map(callEntry), ...admin.map(adminEntry)].sort(newestFirst).slice(0, ACTIVITY_LIMIT);
    return { items, filter };
  }

  /** Every registered server's health: errors first, then by name. */
  async health(): Promise<ServerHealthEntry[]> {
    const { rows } = await this.deps.servers.list({ page: 1, pageSize: 1_000_000 });
    const entries = rows.map((row): ServerHealthEntry => {
      const s = this.deps.servers.status(row);
      return {
        server_id: row.id,
        name: row.name,
        status: s.status,
        latency_ms: s.latencyMs,
        last_checked_at: s.lastCheckedAt?.toISOString() ?? null,
        last_error: s.lastError,
      };
    });
    return entries.sort((a, b) => {
      const ea = a.status === 'error' ? 0 : 1;
      const eb = b.status === 'error' ? 0 : 1;
      return ea - eb || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.server_id < b.server_id ? -1 : 1);
    });
  }

  /** Servers with calls in the window (not the "no server" key), most calls first, then by name. */
  private ranked(rows: ServerWindowRow[]): ServerWindowRow[] {
    return rows
      .filter((r) => r.server_id !== NO_SERVER_ID && r.calls > 0)
      .sort((a, b) => b.calls - a.calls || compareText(this.serverName(a), this.serverName(b)) || compareText(a.server_id, b.server_id));
  }

  /** The server's current name, else the name recorded with its calls, else its id. */
  private serverName(row: ServerWindowRow): string {
    return this.deps.catalog.serverState(row.server_id)?.name ?? row.server_name ?? row.server_id;
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A recorded tool call as a feed entry: failed calls are `error` entries. */
export function callEntry(r: CallActivityRow): ActivityEntry {
  const ok = r.status === 'ok';
  const details: Record<string, unknown> = { endpoint: r.endpoint, call_status: r.status, tool_name: r.tool_name };
  if (r.bundle_id) details.bundle_id = r.bundle_id;
  if (r.bundle_name) details.bundle_name = r.bundle_name;
  if (r.server_id) details.server_id = r.server_id;
  if (r.server_name) details.server_name = r.server_name;
  if (r.user_id) details.user_id = r.user_id;
  if (r.key_prefix) details.api_key_prefix = r.key_prefix;
  if (r.error) details.error = r.error;
  return {
    id: r.call_id,
    kind: ok ? 'tool_call' : 'error',
    timestamp: r.occurred_at.toISOString(),
    actor: r.user_id ? r.user_name || r.user_email || null : (r.bundle_name ?? null),
    action: 'tools/call',
    target: r.server_name ? `${r.server_name}.${r.tool_name}` : r.tool_name,
    status: ok ? 'success' : 'error',
    latency_ms: r.latency_ms,
    details,
  };
}

/** An admin activity entry as a feed entry. */
export function adminEntry(r: DbActivityRow): ActivityEntry {
  const details: Record<string, unknown> = { ...r.details };
  if (r.target_type) details.target_type = r.target_type;
  if (r.target_id) details.target_id = r.target_id;
  return {
    id: r.id,
    kind: 'admin',
    timestamp: r.occurred_at.toISOString(),
    actor: r.actor_name,
    action: r.action,
    target: r.target_name ?? r.target_id,
    status: r.outcome,
    latency_ms: null,
    details,
  };
}
