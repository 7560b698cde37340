import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { bucketRange, hasIsolatedValues } from './chart-scale.js';

export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
  /** Draw as bars (counts) instead of a line. */
  bars?: boolean;
  unit?: string;
}

/**
 * A time-series chart (uPlot, canvas) sized to its container. The canvas is hidden from
 * assistive technology: every chart comes with a data table (`ChartTable`) instead.
 */
export function TimeChart(props: {
  times: number[];
  series: ChartSeries[];
  label: string;
  height?: number;
  yLabel?: string;
  /** The width of one bucket in seconds (default an hour): the first and last bars are drawn whole. */
  bucketSeconds?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axisStroke = getComputedStyle(el).getPropertyValue('--text-muted').trim() || '#555';
    const gridStroke = getComputedStyle(el).getPropertyValue('--grid').trim() || 'rgba(0,0,0,0.08)';
    const opts: uPlot.Options = {
      width: Math.max(260, el.clientWidth),
      height: props.height ?? 220,
      cursor: { drag: { x: false, y: false } },
      legend: { show: true },
      scales: {
        x: { time: true, range: (_u, min, max) => bucketRange(min, max, props.bucketSeconds ?? 3600) },
        y: { range: (_u, min, max) => [0, Math.max(1, max ?? 0, min ?? 0) * 1.1] },
      },
      axes: [
        { stroke: axisStroke, grid: { stroke: gridStroke }, ticks: { stroke: gridStroke } },
        { stroke: axisStroke, grid: { stroke: gridStroke }, ticks: { stroke: gridStroke }, label: props.yLabel, size: 56 },
      ],
      series: [
        { label: 'Hour (local time)' },
        ...props.series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          fill: s.bars ? `${s.color}55` : undefined,
          paths: s.bars ? uPlot.paths.bars!({ size: [0.6, 40] }) : undefined,
          // A value with no neighbour to join is drawn as a point, or it would not show at all.
          points: { show: !s.bars && hasIsolatedValues(s.values), size: 6 },
          spanGaps: false,
          value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? '—' : `${Math.round(v * 10) / 10}${s.unit ?? ''}`),
        })),
      ],
    };
    const data = [props.times, ...props.series.map((s) => s.values)] as uPlot.AlignedData;
    plot.current?.destroy();
    plot.current = new uPlot(opts, data, el);
    const canvasWrap = el.querySelector('.u-wrap');
    canvasWrap?.setAttribute('aria-hidden', 'true');
    const ro = new ResizeObserver(() => {
      if (plot.current && el.clientWidth > 0) plot.current.setSize({ width: Math.max(260, el.clientWidth), height: props.height ?? 220 });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [props.times, props.series, props.height, props.yLabel, props.bucketSeconds]);

  return <div class="chart" ref={box} role="img" aria-label={props.label} />;
}

/** The data of a chart as a table, behind a disclosure (for screen readers and exact numbers). */
export function ChartTable(props: { caption: string; times: number[]; series: ChartSeries[] }) {
  const fmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short' });
  return (
    <details class="chart-data">
      <summary>Show data: {props.caption}</summary>
      <div class="table-wrap">
        <table>
          <caption class="sr-only">{props.caption}</caption>
          <thead>
            <tr>
              <th scope="col">Hour</th>
              {props.series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.times.map((t, i) => (
              <tr key={t}>
                <th scope="row">{fmt.format(new Date(t * 1000))}</th>
                {props.series.map((s) => (
                  <td key={s.label}>{s.values[i] ?? '—'}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
