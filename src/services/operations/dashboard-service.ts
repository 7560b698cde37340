import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import { addHistogram, histogramPercentile } from '../../lib/latency-histogram.js';
import type { ActivityStore, DbActivityRow } from '../../stores/activity-store.js';
import { NO_SERVER_ID } from '../../stores/call-records-store.js';
import type { ActivityNames, CallActivityRow, DashboardStore, ServerWindowRow } from '../../stores/dashboard-store.js';
import type { InMemoryCatalog } from '../../live/in-memory-catalog.js';

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

/** What the dashboard needs of an upstream's live connection state (the upstream pool's). */
export interface UpstreamHealth {
  readonly status: 'connecting' | 'connected' | 'error';
  readonly lastError: string | null;
  readonly latencyMs: number | null;
  readonly lastCheckedAt: Date | null;
}

export interface DashboardServiceDeps {
  store: DashboardStore;
  activity: ActivityStore;
  /** Every registered server (name, enabled) and its tools, in memory. */
  catalog: Pick<InMemoryCatalog, 'serverIds' | 'toolsOfServer' | 'serverState'>;
  /** Live connection state of an enabled server (undefined before its first connection attempt). */
  upstreamState: (serverId: string) => UpstreamHealth | undefined;
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

  /** `filter` defaults to `all` (the query parameter's default). */
  async overview(filter: ActivityFilter = 'all'): Promise<DashboardResponse> {
    const now = this.deps.clock.now();
    const { from, to } = chartWindow(now);
    const [{ servers, histograms, counts }, activity] = await Promise.all([this.deps.store.overview(from, to, now), this.activity(filter)]);
    const top = (await this.ranked(servers)).slice(0, TOP_SERVERS);
    const health = this.health();
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
      top_servers: top.map((s) => ({
        server_id: s.server_id,
        name: s.name,
        calls: s.calls,
        errors: s.errors,
        avg_latency_ms: round3(s.latency_sum_ms / s.calls),
      })),
      generated_at: now.toISOString(),
    };
  }

  async charts(): Promise<DashboardCharts> {
    const { from, to } = chartWindow(this.deps.clock.now());
    const { servers, hours, histograms } = await this.deps.store.charts(from, to);
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
      server_load: (await this.ranked(servers)).map((s) => ({ server_id: s.server_id, name: s.name, calls: s.calls })),
    };
  }

  /** The newest 50 entries matching the filter (default `all`), newest first. */
  async activity(filter: ActivityFilter = 'all'): Promise<ActivityResponse> {
    const { store, activity } = this.deps;
    const failedOnly = filter === 'errors';
    const [calls, admin] = await Promise.all([
      filter === 'admin' ? [] : store.recentCalls({ limit: ACTIVITY_LIMIT, failedOnly }),
      filter === 'tools' ? [] : activity.recent({ limit: ACTIVITY_LIMIT, failedOnly }),
    ]);
    const names = await store.names({
      users: distinct(calls.map((c) => c.user_id)),
      bundles: distinct(calls.map((c) => c.bundle_id)),
      keys: distinct(calls.map((c) => c.api_key_id)),
    });
    const items = [...calls.map((c) => callEntry(c, names)), ...admin.map(adminEntry)].sort(newestFirst).slice(0, ACTIVITY_LIMIT);
    return { items, filter };
  }

  /** Every registered server's health, live from this instance's memory: errors first, then by name. */
  health(): ServerHealthEntry[] {
    const entries: ServerHealthEntry[] = [];
    for (const id of this.deps.catalog.serverIds()) {
      const server = this.deps.catalog.serverState(id);
      if (!server) continue;
      const live = server.enabled ? this.deps.upstreamState(id) : undefined;
      entries.push({
        server_id: id,
        name: server.name,
        status: server.enabled ? (live?.status ?? 'connecting') : 'disabled',
        latency_ms: live?.status === 'connected' ? live.latencyMs : null,
        last_checked_at: live?.lastCheckedAt?.toISOString() ?? null,
        last_error: live?.lastError ?? null,
      });
    }
    return entries.sort(
      (a, b) =>
        (a.status === 'error' ? 0 : 1) - (b.status === 'error' ? 0 : 1) ||
        compareText(a.name, b.name) ||
        compareText(a.server_id, b.server_id),
    );
  }

  /**
   * Servers with calls in the window (not the "no server" key), most calls first, then by name,
   * named by the registry, else (a deleted server) by the name recorded with its calls.
   */
  private async ranked(rows: ServerWindowRow[]): Promise<(ServerWindowRow & { name: string })[]> {
    const busy = rows.filter((r) => r.server_id !== NO_SERVER_ID && r.calls > 0);
    const unknown = busy.filter((r) => !this.deps.catalog.serverState(r.server_id)).map((r) => r.server_id);
    const recorded = await this.deps.store.recordedServerNames(unknown);
    return busy
      .map((r) => ({ ...r, name: this.deps.catalog.serverState(r.server_id)?.name ?? recorded.get(r.server_id) ?? r.server_id }))
      .sort((a, b) => b.calls - a.calls || compareText(a.name, b.name) || compareText(a.server_id, b.server_id));
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function distinct(ids: (string | null)[]): string[] {
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

/** A recorded tool call as a feed entry: failed calls are `error` entries. */
export function callEntry(r: CallActivityRow, names: ActivityNames): ActivityEntry {
  const user = r.user_id ? names.users.get(r.user_id) : undefined;
  const bundleName = r.bundle_id ? (names.bundles.get(r.bundle_id) ?? null) : null;
  const keyPrefix = r.api_key_id ? (names.keyPrefixes.get(r.api_key_id) ?? null) : null;
  const ok = r.status === 'ok';
  const details: Record<string, unknown> = { endpoint: r.endpoint, call_status: r.status, tool_name: r.tool_name };
  if (r.bundle_id) details.bundle_id = r.bundle_id;
  if (bundleName) details.bundle_name = bundleName;
  if (r.server_id) details.server_id = r.server_id;
  if (r.server_name) details.server_name = r.server_name;
  if (r.user_id) details.user_id = r.user_id;
  if (keyPrefix) details.api_key_prefix = keyPrefix;
  if (r.error) details.error = r.error;
  if (r.redactions) details.redactions = r.redactions;
  if (r.interceptions?.length) details.interceptions = r.interceptions;
  return {
    id: r.call_id,
    kind: ok ? 'tool_call' : 'error',
    timestamp: r.occurred_at.toISOString(),
    actor: r.user_id ? user?.name || user?.email || null : bundleName,
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
