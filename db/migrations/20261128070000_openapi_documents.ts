import type { Knex } from 'knex';

/**
 * OpenAPI servers: the OpenAPI document a server's tools are generated from (one row per server,
 * deleted with it). The server itself is a stdio server whose process is Toolgate's OpenAPI
 * bridge; each instance writes the document to its data directory before it starts the bridge.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_server_openapi', (t) => {
    t.uuid('server_id').notNullable().primary({ constraintName: 'mcp_server_openapi_pkey' });
    t.foreign('server_id', 'mcp_server_openapi_server_id_fkey').references('mcp_servers.id').onDelete('CASCADE');
    t.text('document').notNullable();
    t.text('source_url').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "comment on table mcp_server_openapi is 'The OpenAPI document (JSON text) an OpenAPI server''s tools are generated from, and the URL it was fetched from (null: uploaded).'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mcp_server_openapi');
}
