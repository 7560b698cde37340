import type { Knex } from 'knex';

/**
 * A server's call timeout and health-check interval may be null: the server then follows the
 * general settings `upstream_call_timeout_ms` and `health_check_interval_seconds`, also when they
 * change later. Values stored before keep applying (they may have been chosen on purpose).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.integer('call_timeout_ms').nullable().alter();
    t.integer('health_check_interval_seconds').nullable().alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('mcp_servers').whereNull('call_timeout_ms').update({ call_timeout_ms: 60_000 });
  await knex('mcp_servers').whereNull('health_check_interval_seconds').update({ health_check_interval_seconds: 60 });
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.integer('call_timeout_ms').notNullable().alter();
    t.integer('health_check_interval_seconds').notNullable().alter();
  });
}
