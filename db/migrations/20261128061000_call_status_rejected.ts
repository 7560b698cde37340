import type { Knex } from 'knex';

/**
 * A tool call the gateway refuses for the caller's mistake before any upstream is called (an
 * argument the bundle pins or hides) is recorded as `rejected`, apart from the upstream's own
 * failures, so it never raises a server's error rate on the dashboard.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table call_records drop constraint call_records_status_check');
  await knex.raw(
    "alter table call_records add constraint call_records_status_check check (status in ('ok', 'tool_error', 'error', 'timeout', 'cancelled', 'rejected'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('call_records').where({ status: 'rejected' }).update({ status: 'tool_error' });
  await knex.raw('alter table call_records drop constraint call_records_status_check');
  await knex.raw(
    "alter table call_records add constraint call_records_status_check check (status in ('ok', 'tool_error', 'error', 'timeout', 'cancelled'))",
  );
}
