import type { Knex } from 'knex';

/**
 * `call_records` is written on every tool call and read only by the dashboard (the most recent
 * calls, optionally the failed ones) and the retention purge (by time), which use the
 * `(occurred_at, id)` and failed-calls indexes; per-server and per-bundle figures come from
 * `call_rollups`. The `(bundle_id, occurred_at)` and `(server_id, occurred_at)` indexes served no
 * query and cost every insert two index entries: about a seventh of the database's CPU per
 * recorded call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists call_records_bundle_id_occurred_at_idx');
  await knex.raw('drop index if exists call_records_server_id_occurred_at_idx');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists call_records_bundle_id_occurred_at_idx on call_records (bundle_id, occurred_at)');
  await knex.raw('create index if not exists call_records_server_id_occurred_at_idx on call_records (server_id, occurred_at)');
}
