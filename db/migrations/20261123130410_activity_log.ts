import type { Knex } from 'knex';

/**
 * The admin activity log: one row per state-changing administrative operation, written in the
 * same transaction as the change. Rows hold ids and names (who, what, target, outcome), never a
 * secret or a request body.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('activity_log', (t) => {
    t.uuid('id').primary({ constraintName: 'activity_log_pkey' });
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.uuid('actor_id');
    t.foreign('actor_id', 'activity_log_actor_id_fkey').references('users.id').onDelete('SET NULL');
    t.text('actor_name');
    t.text('action').notNullable();
    t.text('target_type');
    t.text('target_id');
    t.text('target_name');
    t.text('outcome').notNullable();
    t.jsonb('details').notNullable().defaultTo('{}');
    t.index(['occurred_at', 'id'], 'activity_log_occurred_at_idx');
    t.check("outcome in ('success', 'error')", [], 'activity_log_outcome_check');
  });
  await knex.raw("create index activity_log_failed_idx on activity_log (occurred_at, id) where outcome = 'error'");
  await knex.raw(
    "comment on table activity_log is 'Admin activity: who did what to which target, when, with what outcome; ids and names only, never secrets.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('activity_log');
}
