import type { Knex } from 'knex';

/** Nil UUID: the rollup key of calls that name no server (never a registered server's id). */
const NO_SERVER = '00000000-0000-0000-0000-000000000000';
const HOUR_MS = 3_600_000;

/**
 * The latency bucket of src/lib/latency-histogram.ts, frozen here as this migration wrote it
 * (ratio 1.02 from 1 µs, 1200 buckets). Computed in JavaScript like the live path, so a latency
 * on a bucket edge lands in the same bucket (PostgreSQL's ln() may round differently).
 */
function latencyBucket(ms: number): number {
  if (!(ms >= 0.001)) return 0;
  return Math.min(1 + Math.floor(Math.log(ms / 0.001) / Math.log(1.02)), 1200);
}

/** Builds the hourly histograms of the existing records, reading them in chunks. */
async function backfillHistograms(knex: Knex): Promise<void> {
  const hours = new Map<number, number[]>();
  for (let after = '0'; ;) {
    const rows = (await knex('call_records')
      .select('id', 'occurred_at', 'latency_ms')
      .where('id', '>', after)
      .orderBy('id')
      .limit(50_000)) as { id: string | number; occurred_at: Date; latency_ms: number }[];
    if (rows.length === 0) break;
    for (const r of rows) {
      const hour = Math.floor(r.occurred_at.getTime() / HOUR_MS) * HOUR_MS;
      let counts = hours.get(hour);
      if (!counts) hours.set(hour, (counts = []));
      const bucket = latencyBucket(Number(r.latency_ms));
      for (let i = counts.length; i <= bucket; i++) counts.push(0);
      counts[bucket]! += 1;
    }
    after = String(rows[rows.length - 1]!.id);
  }
  const entries = [...hours].map(([hour, counts]) => ({ hour: new Date(hour), counts }));
  for (let i = 0; i < entries.length; i += 500) {
    await knex.raw(
      'insert into call_latency_histogram (hour, counts) select hour, counts from jsonb_to_recordset(?::jsonb) as x(hour timestamptz, counts bigint[])',
      [JSON.stringify(entries.slice(i, i + 500))],
    );
  }
}

/**
 * Rollups of the call records, kept in step with them by the batch insert (same statement), so
 * the dashboard reads a few hundred small rows instead of scanning millions of records:
 *
 * - `call_rollups`: per UTC hour × server, calls, failed calls and the latency sum.
 * - `call_latency_histogram`: per UTC hour, the number of calls in each log-spaced latency bucket
 *   (src/lib/latency-histogram.ts: ratio 1.02 from 1 µs; array index = bucket), for percentiles
 *   within 1 % of exact.
 *
 * Both are updated in place by every batch, so they are created with room for HOT updates.
 * Call records gain `call_id` (the uuid the activity feed shows) and `server_name` (the server's
 * name when the call was made, so a deleted or renamed server keeps a readable name); the time
 * index gains `id` so "newest first" is one index scan. Existing records are rolled up here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table call_records add column call_id uuid not null default gen_random_uuid()');
  await knex.raw('alter table call_records add column server_name text');
  await knex.raw('create index call_records_occurred_at_id_idx on call_records (occurred_at, id)');
  await knex.raw('drop index call_records_occurred_at_idx');
  await knex.raw("create index call_records_failed_idx on call_records (occurred_at, id) where status <> 'ok'");

  await knex.raw(
    `create table call_rollups (
       hour timestamptz not null,
       server_id uuid not null,
       server_name text,
       calls bigint not null,
       errors bigint not null,
       latency_sum_ms double precision not null,
       constraint call_rollups_pkey primary key (hour, server_id),
       constraint call_rollups_counts_check check (calls >= 0 and errors >= 0 and errors <= calls)
     ) with (fillfactor = 70)`,
  );
  await knex.raw(
    "comment on table call_rollups is 'Tool calls per UTC hour x server (calls, failed calls, latency sum), upserted with each batch of call_records; nil server id = no server.'",
  );

  await knex.raw(
    `create table call_latency_histogram (
       hour timestamptz not null,
       counts bigint[] not null,
       constraint call_latency_histogram_pkey primary key (hour)
     ) with (fillfactor = 50)`,
  );
  await knex.raw(
    "comment on table call_latency_histogram is 'Tool calls per UTC hour in each log-spaced latency bucket (array index = bucket; ratio 1.02 from 1 microsecond), upserted with each batch of call_records.'",
  );

  await knex.raw(
    `insert into call_rollups (hour, server_id, server_name, calls, errors, latency_sum_ms)
     select date_trunc('hour', occurred_at, 'UTC'), coalesce(server_id, ?::uuid), max(server_name),
            count(*), count(*) filter (where status <> 'ok'), sum(latency_ms)
     from call_records group by 1, 2`,
    [NO_SERVER],
  );
  await backfillHistograms(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table call_latency_histogram');
  await knex.raw('drop table call_rollups');
  await knex.raw('drop index call_records_failed_idx');
  await knex.raw('create index call_records_occurred_at_idx on call_records (occurred_at)');
  await knex.raw('drop index call_records_occurred_at_id_idx');
  await knex.raw('alter table call_records drop column server_name');
  await knex.raw('alter table call_records drop column call_id');
}
