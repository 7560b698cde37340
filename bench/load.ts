/** A small undici load client with microsecond timings: closed-loop and fixed-rate runs. */
import { Pool } from 'undici';

export interface Target {
  origin: string;
  path: string;
  /** Headers of request `i` of client `c`. */
  headers: (client: number) => Record<string, string>;
  body: (seq: number) => string;
}

export interface RunResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summarise(latencies: number[], errors: number, seconds: number): RunResult {
  const sorted = Float64Array.from(latencies).sort();
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return {
    requests: latencies.length,
    errors,
    seconds: r(seconds),
    rps: Math.round(latencies.length / seconds),
    p50_ms: r(percentile(sorted, 50)),
    p99_ms: r(percentile(sorted, 99)),
  };
}

async function once(pool: Pool, target: Target, client: number, seq: number): Promise<boolean> {
  const res = await pool.request({ method: 'POST', path: target.path, headers: target.headers(client), body: target.body(seq) });
  const text = await res.body.text();
  return res.statusCode === 200 && !text.includes('"error"');
}

/** `clients` concurrent loops, each sending its next request when the last one answered. */
export async function closedLoop(target: Target, clients: number, durationMs: number): Promise<RunResult> {
  const pool = new Pool(target.origin, { connections: clients, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let errors = 0;
  let seq = 0;
  const started = performance.now();
  const end = started + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          if (await once(pool, target, c, ++seq)) latencies.push(performance.now() - t0);
          else errors += 1;
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return summarise(latencies, errors, seconds);
}

/**
 * Where a fixed-rate request's latency counts from: its scheduled start when the loop sends it late
 * (so a stalled target's queueing counts: no coordinated omission), or the actual send when the loop
 * sends it up to 1 ms early (so an answer arriving before the scheduled time is never negative).
 */
export function latencyOrigin(due: number, sentAt: number): number {
  return Math.min(due, sentAt);
}

/** Open loop: requests start on a fixed schedule; latency counts from the scheduled start, or from the send when that came earlier. */
export async function fixedRate(target: Target, rate: number, durationMs: number, connections = 64): Promise<RunResult> {
  const pool = new Pool(target.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.floor((rate * durationMs) / 1000);
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const from = latencyOrigin(due, performance.now());
    inflight.push(
      once(pool, target, i % connections, i).then(
        (ok) => {
          if (ok) latencies.push(performance.now() - from);
          else errors += 1;
        },
        () => {
          errors += 1;
        },
      ),
    );
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return summarise(latencies, errors, seconds);
}
