import { useMemo, useState } from 'preact/hooks';
import { api, ApiError, call, type Schema } from '../lib/api.js';
import { useAsync, useInterval } from '../lib/hooks.js';
import { ChartTable, TimeChart, type ChartSeries } from '../ui/chart.js';
import {
  Checkbox,
  Empty,
  ErrorNotice,
  Loading,
  ms,
  NotAvailable,
  PageHeader,
  Pill,
  Section,
  SelectField,
  Time,
  type Tone,
} from '../ui/kit.js';

type Filter = Schema<'ActivityFilter'>;
const FILTERS: { value: Filter; label: string }[] = [
  { value: 'all', label: 'All activity' },
  { value: 'tools', label: 'Tool calls' },
  { value: 'errors', label: 'Errors' },
  { value: 'admin', label: 'Admin actions' },
];
const REFRESH_MS = 15_000;

export function statusTone(status: Schema<'MCPServerStatus'>): Tone {
  return status === 'connected' ? 'ok' : status === 'connecting' ? 'info' : status === 'error' ? 'bad' : 'neutral';
}

/**
 * The dashboard: headline numbers, server health, charts of the last 24 hours and the activity
 * feed, refreshed every 15 s without reloading the page (paused in a background tab).
 */
export function DashboardView() {
  const [filter, setFilter] = useState<Filter>('all');
  const [auto, setAuto] = useState(true);
  const overview = useAsync(() => call(api.GET('/api/v1/dashboard', { params: { query: { activity_filter: filter } } })), []);
  const charts = useAsync(() => call(api.GET('/api/v1/dashboard/charts')), []);
  const activity = useAsync(
    () => call(api.GET('/api/v1/dashboard/activity', { params: { query: { activity_filter: filter } } })),
    [filter],
  );

  useInterval(
    () => {
      void overview.reload();
      void charts.reload();
      void activity.reload();
    },
    REFRESH_MS,
    auto && !(overview.error instanceof ApiError && overview.error.notImplemented),
  );

  const unavailable = overview.error instanceof ApiError && overview.error.notImplemented;
  const generatedAt = overview.data?.generated_at;

  return (
    <>
      <PageHeader
        title="Dashboard"
        intro="Usage and health of the gateway over the last 24 hours."
        actions={
          !unavailable && (
            <div class="refresh">
              <Checkbox name="auto_refresh" label="Refresh every 15 s" checked={auto} onValue={setAuto} />
              <span class="muted small" aria-live="polite">
                {generatedAt ? (
                  <>
                    Updated <Time iso={generatedAt} relative />
                  </>
                ) : null}
              </span>
            </div>
          )
        }
      />
      {unavailable ? (
        <NotAvailable feature="Dashboard" />
      ) : overview.error && !overview.data ? (
        <ErrorNotice error={overview.error} onRetry={overview.reload} />
      ) : !overview.data ? (
        <Loading />
      ) : (
        <>
          <Stats stats={overview.data.stats} />
          <div class="grid two">
            <Section title="Tool calls">
              {charts.data ? <CallsChart charts={charts.data} /> : charts.error ? <ErrorNotice error={charts.error} /> : <Loading />}
            </Section>
            <Section title="Latency percentiles">
              {charts.data ? <LatencyChart charts={charts.data} /> : charts.error ? <ErrorNotice error={charts.error} /> : <Loading />}
            </Section>
          </div>
          <div class="grid two">
            <Section title="Server load">{charts.data ? <ServerLoad load={charts.data.server_load} /> : <Loading />}</Section>
            <Section title="Top servers">
              <TopServers rows={overview.data.top_servers} />
            </Section>
          </div>
          <Section title="Server health">
            <Health rows={overview.data.health} />
          </Section>
          <Section
            title="Activity"
            actions={<SelectField label="Show" name="activity_filter" value={filter} onValue={setFilter} options={FILTERS} />}
          >
            {activity.error && !activity.data ? (
              <ErrorNotice error={activity.error} onRetry={activity.reload} />
            ) : (
              <ActivityFor filter={filter} feeds={[activity.data, overview.data.activity]} />
            )}
          </Section>
        </>
      )}
    </>
  );
}

function Stats(props: { stats: Schema<'DashboardStats'> }) {
  const s = props.stats;
  const cards: { label: string; value: string; detail?: string; tone?: Tone }[] = [
    {
      label: 'Servers connected',
      value: `${s.servers_connected} / ${s.servers_total}`,
      detail: s.servers_error ? `${s.servers_error} in error` : 'none in error',
      tone: s.servers_error ? 'bad' : 'ok',
    },
    { label: 'Tools enabled', value: `${s.tools_enabled} / ${s.tools_total}` },
    { label: 'Bundles', value: String(s.bundles_total) },
    { label: 'Users', value: String(s.users_total), detail: `${s.api_keys_active} active API keys` },
    { label: 'Tool calls (24 h)', value: s.calls_24h.toLocaleString(), detail: `${s.errors_24h.toLocaleString()} failed` },
    { label: 'Error rate (24 h)', value: `${(s.error_rate_24h * 100).toFixed(1)} %`, tone: s.error_rate_24h > 0.05 ? 'bad' : 'ok' },
    { label: 'Median latency (24 h)', value: ms(s.p50_latency_ms_24h) },
    { label: 'p95 latency (24 h)', value: ms(s.p95_latency_ms_24h) },
  ];
  return (
    <ul class="stats" aria-label="Headline numbers">
      {cards.map((c) => (
        <li key={c.label} class={`stat ${c.tone ?? ''}`}>
          <span class="stat-label">{c.label}</span>
          <span class="stat-value">{c.value}</span>
          {c.detail && <span class="stat-detail">{c.detail}</span>}
        </li>
      ))}
    </ul>
  );
}

const toSeconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

function CallsChart(props: { charts: Schema<'DashboardCharts'> }) {
  const { times, series } = useMemo(() => {
    const b = props.charts.tool_calls;
    const s: ChartSeries[] = [
      { label: 'Calls', color: '#2563eb', values: b.map((x) => x.calls), bars: true },
      { label: 'Errors', color: '#dc2626', values: b.map((x) => x.errors) },
    ];
    return { times: b.map((x) => toSeconds(x.bucket)), series: s };
  }, [props.charts]);
  return (
    <>
      <TimeChart
        times={times}
        series={series}
        label="Tool calls and errors per hour over the last 24 hours"
        yLabel="calls / hour"
        bucketSeconds={props.charts.window.bucket_seconds}
      />
      <ChartTable caption="Tool calls and errors per hour" times={times} series={series} />
    </>
  );
}

function LatencyChart(props: { charts: Schema<'DashboardCharts'> }) {
  const { times, series } = useMemo(() => {
    const b = props.charts.latency;
    const s: ChartSeries[] = [
      { label: 'p50', color: '#059669', values: b.map((x) => x.p50_ms), unit: ' ms' },
      { label: 'p95', color: '#d97706', values: b.map((x) => x.p95_ms), unit: ' ms' },
      { label: 'p99', color: '#7c3aed', values: b.map((x) => x.p99_ms), unit: ' ms' },
    ];
    return { times: b.map((x) => toSeconds(x.bucket)), series: s };
  }, [props.charts]);
  return (
    <>
      <TimeChart
        times={times}
        series={series}
        label="Tool-call latency percentiles p50, p95 and p99 per hour"
        yLabel="ms"
        bucketSeconds={props.charts.window.bucket_seconds}
      />
      <ChartTable caption="Latency percentiles per hour (ms)" times={times} series={series} />
    </>
  );
}

function ServerLoad(props: { load: Schema<'ServerLoadEntry'>[] }) {
  if (!props.load.length) return <Empty>No tool calls in the last 24 hours.</Empty>;
  const max = Math.max(...props.load.map((l) => l.calls), 1);
  return (
    <ul class="bars" aria-label="Calls per server, last 24 hours">
      {props.load.map((l) => (
        <li key={l.server_id}>
          <a href={`/servers/${l.server_id}`} class="bar-label">
            {l.name}
          </a>
          <span class="bar-track" aria-hidden="true">
            <span class="bar-fill" style={{ width: `${(l.calls / max) * 100}%` }} />
          </span>
          <span class="bar-value">{l.calls.toLocaleString()}</span>
        </li>
      ))}
    </ul>
  );
}

function TopServers(props: { rows: Schema<'TopServer'>[] }) {
  if (!props.rows.length) return <Empty>No tool calls in the last 24 hours.</Empty>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Server</th>
            <th scope="col" class="num">
              Calls
            </th>
            <th scope="col" class="num">
              Errors
            </th>
            <th scope="col" class="num">
              Mean latency
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.server_id}>
              <th scope="row">
                <a href={`/servers/${r.server_id}`}>{r.name}</a>
              </th>
              <td class="num">{r.calls.toLocaleString()}</td>
              <td class="num">{r.errors.toLocaleString()}</td>
              <td class="num">{ms(r.avg_latency_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Health(props: { rows: Schema<'ServerHealthEntry'>[] }) {
  if (!props.rows.length)
    return (
      <Empty>
        No servers registered yet. <a href="/servers">Add one</a>.
      </Empty>
    );
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Server</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Probe latency
            </th>
            <th scope="col">Checked</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((h) => (
            <tr key={h.server_id}>
              <th scope="row">
                <a href={`/servers/${h.server_id}`}>{h.name}</a>
              </th>
              <td>
                <Pill tone={statusTone(h.status)}>{h.status}</Pill>
              </td>
              <td class="num">{ms(h.latency_ms)}</td>
              <td>
                <Time iso={h.last_checked_at} relative />
              </td>
              <td class="wrap">{h.last_error ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The first feed that answers the selected filter. Right after the filter changes, the feeds at
 * hand still hold the previous filter's entries: they are not shown under the new label.
 */
function ActivityFor(props: { filter: Filter; feeds: (Schema<'ActivityResponse'> | undefined)[] }) {
  const feed = props.feeds.find((f) => f?.filter === props.filter);
  return feed ? <Activity items={feed.items} /> : <Loading />;
}

function Activity(props: { items: Schema<'ActivityEntry'>[] }) {
  if (!props.items.length) return <Empty>Nothing recorded for this filter yet.</Empty>;
  return (
    <div class="table-wrap">
      <table class="activity">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Kind</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Latency
            </th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((a) => (
            <tr key={a.id}>
              <td>
                <Time iso={a.timestamp} relative />
              </td>
              <td>
                <Pill tone={a.kind === 'error' ? 'bad' : a.kind === 'admin' ? 'info' : 'neutral'}>{a.kind.replace('_', ' ')}</Pill>
              </td>
              <td>{a.actor ?? <span class="muted">—</span>}</td>
              <td>
                <code>{a.action}</code>
              </td>
              <td class="wrap">{a.target ?? <span class="muted">—</span>}</td>
              <td>
                <Pill tone={a.status === 'success' ? 'ok' : 'bad'}>{a.status}</Pill>
              </td>
              <td class="num">{ms(a.latency_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
