import type { Knex } from 'knex';

/**
 * A tool call the tool policy refuses is recorded as `denied`: the policy's decision, kept apart
 * from the upstream's failures (it never raises a server's error rate) and exported as the call's
 * outcome in the audit trail.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table call_records drop constraint call_records_status_check');
  await knex.raw(
    "alter table call_records add constraint call_records_status_check check (status in ('ok', 'tool_error', 'error', 'timeout', 'cancelled', 'rejected', 'denied'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('call_records').where({ status: 'denied' }).update({ status: 'error' });
  await knex.raw('alter table call_records drop constraint call_records_status_check');
  await knex.raw(
    "alter table call_records add constraint call_records_status_check check (status in ('ok', 'tool_error', 'error', 'timeout', 'cancelled', 'rejected'))",
  );
}
