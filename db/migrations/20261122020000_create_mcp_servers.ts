import type { Knex } from 'knex';

/**
 * Upstream MCP servers and their catalog: tools (stable id per server + name), resources
 * (and templates) and prompts, as synced from the upstream.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_servers', (t) => {
    t.uuid('id').primary({ constraintName: 'mcp_servers_pkey' });
    t.text('name').notNullable();
    t.text('description');
    t.text('transport').notNullable();
    t.text('command');
    t.jsonb('args').notNullable().defaultTo('[]');
    t.jsonb('env').notNullable().defaultTo('{}');
    // Secret env values and header values: one SecretBox envelope holding a JSON object each.
    t.text('secret_env_sealed');
    t.jsonb('secret_env_keys').notNullable().defaultTo('[]');
    t.text('cwd');
    t.text('url');
    t.text('headers_sealed');
    t.jsonb('header_names').notNullable().defaultTo('[]');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('last_error');
    t.timestamp('last_connected_at', { useTz: true });
    t.text('protocol_version');
    t.jsonb('server_info');
    t.double('latency_ms');
    t.integer('call_timeout_ms').notNullable();
    t.integer('health_check_interval_seconds').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("transport in ('stdio', 'streamable_http', 'sse')", [], 'mcp_servers_transport_check');
  });
  await knex.raw('create unique index mcp_servers_name_lower_key on mcp_servers (lower(name))');
  await knex.raw(
    "comment on table mcp_servers is 'Registered upstream MCP servers; secret env values and header values are sealed (SecretBox).'",
  );

  await knex.schema.createTable('mcp_tools', (t) => {
    t.uuid('id').primary({ constraintName: 'mcp_tools_pkey' });
    t.uuid('server_id').notNullable();
    t.foreign('server_id', 'mcp_tools_server_id_fkey').references('mcp_servers.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('title');
    t.text('description');
    t.jsonb('input_schema').notNullable();
    t.jsonb('output_schema');
    t.jsonb('annotations');
    t.jsonb('meta');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.boolean('available').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['server_id', 'name'], { indexName: 'mcp_tools_server_id_name_key' });
  });
  await knex.raw(
    "comment on table mcp_tools is 'Tool catalog: one row per server + tool name, kept (available = false) when the tool disappears upstream.'",
  );

  await knex.schema.createTable('mcp_resources', (t) => {
    t.uuid('id').primary({ constraintName: 'mcp_resources_pkey' });
    t.uuid('server_id').notNullable();
    t.foreign('server_id', 'mcp_resources_server_id_fkey').references('mcp_servers.id').onDelete('CASCADE');
    t.text('uri').notNullable();
    t.boolean('is_template').notNullable().defaultTo(false);
    t.text('name').notNullable();
    t.text('title');
    t.text('description');
    t.text('mime_type');
    t.bigInteger('size');
    t.jsonb('annotations');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['server_id', 'is_template', 'uri'], { indexName: 'mcp_resources_server_id_uri_key' });
  });
  await knex.raw("comment on table mcp_resources is 'Resources and resource templates of upstream servers, from the last sync.'");

  await knex.schema.createTable('mcp_prompts', (t) => {
    t.uuid('id').primary({ constraintName: 'mcp_prompts_pkey' });
    t.uuid('server_id').notNullable();
    t.foreign('server_id', 'mcp_prompts_server_id_fkey').references('mcp_servers.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('title');
    t.text('description');
    t.jsonb('arguments').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['server_id', 'name'], { indexName: 'mcp_prompts_server_id_name_key' });
  });
  await knex.raw("comment on table mcp_prompts is 'Prompts of upstream servers, from the last sync.'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mcp_prompts');
  await knex.schema.dropTable('mcp_resources');
  await knex.schema.dropTable('mcp_tools');
  await knex.schema.dropTable('mcp_servers');
}
