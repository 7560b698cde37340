import type { Knex } from 'knex';

/**
 * The place of each resource, resource template and prompt in its upstream's list, so
 * `resources/list`, `resources/templates/list` and `prompts/list` keep the upstream's order
 * (rows written before this migration keep 0 and fall back to their name until the next sync).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_resources', (t) => {
    t.integer('position').notNullable().defaultTo(0).comment("Place in the upstream's list (resources and templates counted apart)");
  });
  await knex.schema.alterTable('mcp_prompts', (t) => {
    t.integer('position').notNullable().defaultTo(0).comment("Place in the upstream's prompts/list");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_resources', (t) => {
    t.dropColumn('position');
  });
  await knex.schema.alterTable('mcp_prompts', (t) => {
    t.dropColumn('position');
  });
}
