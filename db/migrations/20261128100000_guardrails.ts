import type { Knex } from 'knex';

/**
 * Guardrails: the installation's redaction settings (`guardrail_settings`, one row), each bundle's
 * override (`bundle_guardrails`, null columns follow the installation), and webhook interceptors
 * (`guardrail_interceptors`, the HMAC secret sealed). Call records keep what the guardrails did:
 * how many values were redacted, and each interceptor's decision.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('guardrail_settings', (t) => {
    t.smallint('id').primary({ constraintName: 'guardrail_settings_pkey' });
    t.boolean('redact_secrets').notNullable().defaultTo(true);
    t.boolean('redact_pii').notNullable().defaultTo(false);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check('id = 1', [], 'guardrail_settings_single_row_check');
  });
  await knex.raw(
    "comment on table guardrail_settings is 'The installation''s guardrail redaction settings (one row, id 1): secrets on by default, personal data off.'",
  );

  await knex.schema.createTable('bundle_guardrails', (t) => {
    t.uuid('bundle_id').primary({ constraintName: 'bundle_guardrails_pkey' });
    t.foreign('bundle_id', 'bundle_guardrails_bundle_id_fkey').references('bundles.id').onDelete('CASCADE');
    t.boolean('redact_secrets');
    t.boolean('redact_pii');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "comment on table bundle_guardrails is 'A bundle''s own guardrail redaction settings; a null column follows the installation''s.'",
  );

  await knex.schema.createTable('guardrail_interceptors', (t) => {
    t.uuid('id').primary({ constraintName: 'guardrail_interceptors_pkey' });
    t.text('name').notNullable();
    t.text('description');
    t.text('url').notNullable();
    t.text('secret_sealed').notNullable();
    t.jsonb('phases').notNullable();
    t.jsonb('bundles').notNullable().defaultTo('[]');
    t.integer('timeout_ms').notNullable();
    t.text('failure_mode').notNullable();
    t.integer('priority').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("failure_mode in ('open', 'closed')", [], 'guardrail_interceptors_failure_mode_check');
  });
  await knex.raw('create unique index guardrail_interceptors_name_lower_key on guardrail_interceptors (lower(name))');
  await knex.raw(
    "comment on table guardrail_interceptors is 'Webhook interceptors called before and/or after tool calls (global, or for the listed bundles); they allow, reject or rewrite. The HMAC secret is sealed.'",
  );

  await knex.schema.alterTable('call_records', (t) => {
    t.integer('redactions').notNullable().defaultTo(0);
    t.jsonb('interceptions');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('call_records', (t) => {
    t.dropColumn('interceptions');
    t.dropColumn('redactions');
  });
  await knex.schema.dropTable('guardrail_interceptors');
  await knex.schema.dropTable('bundle_guardrails');
  await knex.schema.dropTable('guardrail_settings');
}
