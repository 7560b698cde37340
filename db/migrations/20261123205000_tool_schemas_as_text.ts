import type { Knex } from 'knex';

/**
 * Tool input and output schemas are kept as the JSON text the upstream sent (in its key order)
 * rather than as `jsonb`, which reorders keys and cannot hold `\u0000`. Clients see the schema
 * exactly as the upstream declared it; rows written before this migration keep jsonb's order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table mcp_tools alter column input_schema type text using input_schema::text');
  await knex.raw('alter table mcp_tools alter column output_schema type text using output_schema::text');
  await knex.raw("comment on column mcp_tools.input_schema is 'JSON text of the input schema, in the upstream''s key order'");
  await knex.raw("comment on column mcp_tools.output_schema is 'JSON text of the output schema, in the upstream''s key order, or null'");
}

export async function down(knex: Knex): Promise<void> {
  // jsonb cannot hold \u0000: such schemas lose the character on the way down.
  const toJsonb = (col: string) =>
    `alter table mcp_tools alter column ${col} type jsonb using replace(${col}, '\\u0000', '\\ufffd')::jsonb`;
  await knex.raw(toJsonb('input_schema'));
  await knex.raw(toJsonb('output_schema'));
}
