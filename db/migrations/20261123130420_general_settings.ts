import type { Knex } from 'knex';

/**
 * General settings: one row (id 1), created on the first change. A null column means "the
 * default" (the environment's value where one is configured, else the built-in one), so a reset
 * is deleting the row. The registry token is sealed with the master key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('general_settings', (t) => {
    t.integer('id').primary({ constraintName: 'general_settings_pkey' });
    t.integer('log_retention_days');
    t.integer('activity_log_retention_days');
    t.integer('default_rate_limit_rpm');
    t.integer('mcp_session_idle_timeout_minutes');
    t.integer('upstream_call_timeout_ms');
    t.integer('health_check_interval_seconds');
    t.jsonb('allowed_origins');
    t.jsonb('outbound_allowlist');
    t.text('registry_url');
    t.text('registry_token_sealed');
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.check('id = 1', [], 'general_settings_single_row_check');
  });
  await knex.raw(
    "comment on table general_settings is 'General settings: a single row (id 1), created on first change; null = the default. registry_token_sealed is sealed with the master key.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('general_settings');
}
