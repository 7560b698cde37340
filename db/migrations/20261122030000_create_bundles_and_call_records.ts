import type { Knex } from 'knex';

/**
 * Bundles (named, ordered sets of catalog tools with per-tool overrides and a key), and the call
 * records every MCP `tools/call` leaves behind. `bundle_tools.tool_id` names a catalog tool
 * without a foreign key: the catalog belongs to the server registry and a tool that disappears
 * there stays in the bundle, shown as unavailable.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bundles', (t) => {
    t.uuid('id').primary({ constraintName: 'bundles_pkey' });
    t.text('name').notNullable();
    t.text('description');
    t.uuid('agent_id');
    t.text('key_hash').notNullable();
    t.text('key_sealed').notNullable();
    t.uuid('created_by');
    t.foreign('created_by', 'bundles_created_by_fkey').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['agent_id'], { indexName: 'bundles_agent_id_key' });
    t.unique(['key_hash'], { indexName: 'bundles_key_hash_key' });
  });
  await knex.raw('create unique index bundles_name_lower_key on bundles (lower(name))');
  await knex.raw(
    "comment on table bundles is 'Bundles of catalog tools served on /mcp/bundle/{key}: SHA-256 of the key for lookup, the key sealed with the master key.'",
  );

  await knex.schema.createTable('bundle_tools', (t) => {
    t.uuid('bundle_id').notNullable();
    t.foreign('bundle_id', 'bundle_tools_bundle_id_fkey').references('bundles.id').onDelete('CASCADE');
    t.uuid('tool_id').notNullable();
    t.uuid('server_id').notNullable();
    t.text('server_name').notNullable();
    t.text('tool_name').notNullable();
    t.integer('display_order').notNullable();
    t.jsonb('override').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['bundle_id', 'tool_id'], { constraintName: 'bundle_tools_pkey' });
    t.index(['tool_id'], 'bundle_tools_tool_id_idx');
    t.check('display_order >= 0', [], 'bundle_tools_display_order_check');
  });
  await knex.raw(
    "comment on table bundle_tools is 'Tools of a bundle: catalog tool id (no FK, the catalog is the registry''s), a snapshot of its server and name, display order and override.'",
  );

  await knex.schema.createTable('call_records', (t) => {
    t.bigIncrements('id', { primaryKey: false });
    t.primary(['id'], { constraintName: 'call_records_pkey' });
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.text('endpoint').notNullable();
    t.uuid('bundle_id');
    t.uuid('server_id');
    t.uuid('tool_id');
    t.text('tool_name').notNullable();
    t.uuid('user_id');
    t.uuid('api_key_id');
    t.text('status').notNullable();
    t.double('latency_ms').notNullable();
    t.text('error');
    t.index(['occurred_at'], 'call_records_occurred_at_idx');
    t.index(['bundle_id', 'occurred_at'], 'call_records_bundle_id_occurred_at_idx');
    t.index(['server_id', 'occurred_at'], 'call_records_server_id_occurred_at_idx');
    t.check("status in ('ok', 'tool_error', 'error', 'timeout', 'cancelled')", [], 'call_records_status_check');
    t.check("endpoint in ('bundle', 'gateway')", [], 'call_records_endpoint_check');
  });
  await knex.raw(
    "comment on table call_records is 'One row per MCP tools/call (bundle or gateway endpoint), written in batches off the request path; read by the dashboard.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('call_records');
  await knex.schema.dropTable('bundle_tools');
  await knex.schema.dropTable('bundles');
}
