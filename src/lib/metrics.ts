import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/** Latency buckets (seconds) for HTTP requests, MCP requests and tool calls: 1 ms to 60 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * MCP methods a label may name; anything else a client sends is counted as `other`, so a client
 * cannot grow the number of series by inventing method names.
 */
const MCP_METHODS = new Set([
  'initialize',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  // Requests that are not JSON-RPC methods, as the access record names them.
  'batch',
  'stream',
  'end_session',
  'info',
]);

/** A tool call's outcome, as the call records name it. */
export type ToolCallOutcome = 'ok' | 'tool_error' | 'error' | 'timeout' | 'cancelled' | 'rejected' | 'denied';

/** Pool figures of the database connection pool, read at scrape time. */
export interface PoolStats {
  used: number;
  free: number;
  pendingAcquires: number;
  pendingCreates: number;
}

/** What the gauges read when scraped: live state owned by other parts of the process. */
export interface MetricsSources {
  /** Every upstream server the pool holds, with its connection status. */
  upstreams?: () => Iterable<{ serverId: string; status: string }>;
  /** Session-affine upstream connections per server, busy and idle. */
  affineConnections?: () => Iterable<{ serverId: string; busy: number; idle: number }>;
  /** Open MCP sessions. */
  mcpSessions?: () => number;
  /** The database pool; undefined when the driver has none to report. */
  dbPool?: () => PoolStats | undefined;
  /** The call recorder: whether its writes succeed, and the records waiting to be written. */
  callRecords?: () => { ok: boolean; pending: number };
}

/** One counter series: its labels and its value, incremented in place on the hot path. */
interface CounterSeries {
  readonly labels: Readonly<Record<string, string>>;
  value: number;
}

/** One histogram series: per-bucket counts (not cumulative; the last slot is +Inf), sum and count. */
interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A counter family whose series are plain objects the hot path increments (`series.value += 1`:
 * no label hashing, validation or allocation per call, unlike prom-client's own label children,
 * which re-hash their labels on every `inc`). prom-client formats it at scrape time
 * (`Registry.registerMetric` takes any object with `name`, `help`, `type` and `get()`).
 */
class CounterFamily {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private series: CounterSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  add(labels: Record<string, string>): CounterSeries {
    const s: CounterSeries = { labels, value: 0 };
    this.series.push(s);
    return s;
  }

  remove(match: (labels: Readonly<Record<string, string>>) => boolean): void {
    this.series = this.series.filter((s) => !match(s.labels));
  }

  get() {
    const values = this.series.map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A histogram family on the same principle: a bucket found by a short scan, three numbers updated. */
class HistogramFamily {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private series: HistogramSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
  ) {}

  add(labels: Record<string, string>): HistogramSeries {
    const s: HistogramSeries = { labels, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
    this.series.push(s);
    return s;
  }

  observe(s: HistogramSeries, value: number): void {
    const b = this.buckets;
    let i = 0;
    while (i < b.length && value > b[i]!) i += 1;
    s.counts[i] = s.counts[i]! + 1;
    s.sum += value;
    s.count += 1;
  }

  remove(match: (labels: Readonly<Record<string, string>>) => boolean): void {
    this.series = this.series.filter((s) => !match(s.labels));
  }

  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of this.series) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** `map.get(key)`, or `make()` stored under `key`: series are built once, then reused. */
function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/**
 * The process's Prometheus metrics (prom-client, a registry of its own per process so several
 * servers in one test process never share series). Counters and histograms are updated on the
 * request paths through series cached in nested maps (no label object, key string or hash is
 * built per call: a few map lookups and additions); gauges of live state (upstreams, sessions,
 * database pool) are read only when scraped. Labels are bounded: REST routes are operationIds (or
 * `unmatched`), MCP methods come from a fixed list, servers are named by id, statuses by class.
 */
export class Metrics {
  readonly registry = new Registry();
  private sources: MetricsSources = {};

  private readonly httpRequests = this.counter(
    'toolgate_http_requests_total',
    'HTTP requests answered, by route (REST operationId, `mcp_bundle`, `mcp_gateway`, `unmatched` or `other`), method and status class.',
  );
  private readonly httpDuration = this.histogram('toolgate_http_request_duration_seconds', 'Time to answer an HTTP request, by route.');
  private readonly mcpRequests = this.counter(
    'toolgate_mcp_requests_total',
    'MCP requests, by endpoint (`bundle`, `gateway`), JSON-RPC method and outcome (`ok`, `error`).',
  );
  private readonly mcpDuration = this.histogram(
    'toolgate_mcp_request_duration_seconds',
    'Time to answer an MCP request, by endpoint and method (GET streams: how long the stream stayed open).',
  );
  private readonly toolCalls = this.counter(
    'toolgate_tool_calls_total',
    'tools/call requests, by upstream server id and outcome (`ok`, `tool_error`, `error`, `timeout`, `cancelled`, `rejected`: refused by the gateway before the upstream was called, and `denied`: refused by a tool policy rule; neither counted as an error of the server).',
  );
  private readonly toolErrors = this.counter(
    'toolgate_tool_call_errors_total',
    'tools/call requests that did not succeed (every outcome but `ok`), by upstream server id.',
  );
  private readonly toolDuration = this.histogram(
    'toolgate_tool_call_duration_seconds',
    'Duration of tools/call requests, by upstream server id.',
  );
  private readonly rateLimitRejections = this.counter(
    'toolgate_rate_limit_rejections_total',
    'Requests refused with 429, by budget (`api_key`, `session`, `address`).',
  );

  private readonly httpSeries = new Map<string, Map<string, Map<number, { count: CounterSeries; duration: HistogramSeries }>>>();
  private readonly mcpSeries = new Map<string, Map<string, Map<string, { count: CounterSeries; duration: HistogramSeries }>>>();
  private readonly toolSeries = new Map<
    string,
    { duration: HistogramSeries; errors: CounterSeries; byStatus: Map<ToolCallOutcome, CounterSeries> }
  >();
  private readonly rateSeries = new Map<string, CounterSeries>();
  /** Duration series by family and labels (several counter series share one). */
  private readonly durations = new Map<string, HistogramSeries>();

  private counter(name: string, help: string): CounterFamily {
    const family = new CounterFamily(name, help);
    this.registry.registerMetric(family as unknown as Parameters<Registry['registerMetric']>[0]);
    return family;
  }

  private histogram(name: string, help: string): HistogramFamily {
    const family = new HistogramFamily(name, help, LATENCY_BUCKETS);
    this.registry.registerMetric(family as unknown as Parameters<Registry['registerMetric']>[0]);
    return family;
  }

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'toolgate_' });
    const sources = () => this.sources;
    new Gauge({
      name: 'toolgate_upstream_up',
      help: 'Whether each registered, enabled upstream server is connected (1) or not (0), by server id and status.',
      labelNames: ['server_id', 'status'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const u of sources().upstreams?.() ?? [])
          this.set({ server_id: u.serverId, status: u.status }, u.status === 'connected' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'toolgate_upstream_affine_connections',
      help: 'Session-affine upstream connections (a caller that declared sampling, elicitation or roots, on a stdio or HTTP+SSE upstream), by server id and state (`busy`, `idle`).',
      labelNames: ['server_id', 'state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const a of sources().affineConnections?.() ?? []) {
          this.set({ server_id: a.serverId, state: 'busy' }, a.busy);
          this.set({ server_id: a.serverId, state: 'idle' }, a.idle);
        }
      },
    });
    new Gauge({
      name: 'toolgate_mcp_sessions',
      help: 'Open MCP sessions on this instance.',
      registers: [this.registry],
      collect() {
        this.set(sources().mcpSessions?.() ?? 0);
      },
    });
    new Gauge({
      name: 'toolgate_call_records_pending',
      help: 'Tool-call records waiting in memory to be written to the database (grows while writes fail).',
      registers: [this.registry],
      collect() {
        this.set(sources().callRecords?.().pending ?? 0);
      },
    });
    new Gauge({
      name: 'toolgate_call_records_writable',
      help: 'Whether tool-call records are being written (1), or writes fail and are retried (0: database unreachable or out of disk space; see the log).',
      registers: [this.registry],
      collect() {
        this.set(sources().callRecords?.().ok === false ? 0 : 1);
      },
    });
    new Gauge({
      name: 'toolgate_db_pool_connections',
      help: 'Database pool connections by state (`used`, `free`), and requests waiting (`pending_acquire`, `pending_create`).',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const p = sources().dbPool?.();
        if (!p) return;
        this.set({ state: 'used' }, p.used);
        this.set({ state: 'free' }, p.free);
        this.set({ state: 'pending_acquire' }, p.pendingAcquires);
        this.set({ state: 'pending_create' }, p.pendingCreates);
      },
    });
  }

  private readonly auditBacklog = new Gauge({
    name: 'toolgate_audit_export_backlog',
    help: 'Audit events (tool calls, activity) not yet delivered to each audit sink (`otlp`, `file`, `webhook`), as of the last export round.',
    labelNames: ['sink'] as const,
    registers: [this.registry],
  });
  private readonly auditDelivered = new Counter({
    name: 'toolgate_audit_export_events_total',
    help: 'Audit events delivered, by sink.',
    labelNames: ['sink'] as const,
    registers: [this.registry],
  });
  private readonly auditFailures = new Counter({
    name: 'toolgate_audit_export_failures_total',
    help: 'Failed deliveries of an audit batch (retried with backoff), by sink.',
    labelNames: ['sink'] as const,
    registers: [this.registry],
  });

  /** The audit exporter's reports (AuditExportMetrics). */
  readonly audit = {
    backlog: (sink: string, events: number): void => this.auditBacklog.set({ sink }, events),
    delivered: (sink: string, events: number): void => this.auditDelivered.inc({ sink }, events),
    failed: (sink: string): void => this.auditFailures.inc({ sink }),
  };

  /** Connects the gauges to the live state they report (composition root; later calls add or replace sources). */
  setSources(sources: MetricsSources): void {
    this.sources = { ...this.sources, ...sources };
  }

  /** One answered HTTP request (REST, MCP, console, unmatched); `route` is an operationId or a fixed word. */
  httpRequest(route: string, method: string, status: number, seconds: number): void {
    const byMethod = cached(this.httpSeries, route, () => new Map());
    const byClass = cached(byMethod, method, () => new Map());
    const statusClass = Math.floor(status / 100);
    const s = cached(byClass, statusClass, () => ({
      count: this.httpRequests.add({ route, method, status: `${statusClass}xx` }),
      duration: this.sharedDuration(this.httpDuration, { route }),
    }));
    s.count.value += 1;
    this.httpDuration.observe(s.duration, seconds);
  }

  /** One MCP request; an unknown method is counted as `other`. */
  mcpRequest(endpoint: string, method: string | undefined, ok: boolean, seconds: number): void {
    const name = method === undefined ? 'unknown' : MCP_METHODS.has(method) ? method : 'other';
    const byMethod = cached(this.mcpSeries, endpoint, () => new Map());
    const byOutcome = cached(byMethod, name, () => new Map());
    const outcome = ok ? 'ok' : 'error';
    const s = cached(byOutcome, outcome, () => ({
      count: this.mcpRequests.add({ endpoint, method: name, outcome }),
      duration: this.sharedDuration(this.mcpDuration, { endpoint, method: name }),
    }));
    s.count.value += 1;
    this.mcpDuration.observe(s.duration, seconds);
  }

  /** One tools/call, by the upstream server's id (`none` when the call named no server). */
  toolCall(serverId: string | null, status: ToolCallOutcome, seconds: number): void {
    const server = serverId ?? 'none';
    const s = cached(this.toolSeries, server, () => ({
      duration: this.toolDuration.add({ server_id: server }),
      errors: this.toolErrors.add({ server_id: server }),
      byStatus: new Map<ToolCallOutcome, CounterSeries>(),
    }));
    cached(s.byStatus, status, () => this.toolCalls.add({ server_id: server, status })).value += 1;
    if (status !== 'ok' && status !== 'rejected' && status !== 'denied') s.errors.value += 1;
    this.toolDuration.observe(s.duration, seconds);
  }

  /** One request refused by a rate limit. */
  rateLimited(subject: 'api_key' | 'session' | 'address'): void {
    cached(this.rateSeries, subject, () => this.rateLimitRejections.add({ subject })).value += 1;
  }

  /** Forgets the series of a deleted server, so removed servers do not linger in every scrape. */
  forgetServer(serverId: string): void {
    if (!this.toolSeries.delete(serverId)) return;
    const mine = (labels: Readonly<Record<string, string>>) => labels.server_id === serverId;
    for (const family of [this.toolCalls, this.toolErrors, this.toolDuration]) family.remove(mine);
  }

  /**
   * The duration series of a label set several counter series share (one route's statuses, one
   * method's outcomes): made once, found again by its labels when another status first appears.
   */
  private sharedDuration(family: HistogramFamily, labels: Record<string, string>): HistogramSeries {
    const key = `${family.name}\u0000${Object.values(labels).join('\u0000')}`;
    return cached(this.durations, key, () => family.add(labels));
  }

  /** The Content-Type of `render()`'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in the Prometheus text exposition format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
