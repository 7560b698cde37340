import type { Knex } from 'knex';

/**
 * A tool's `execution` as its upstream declares it (MCP 2025-11-25: `taskSupport` forbidden,
 * optional or required), so the gateway knows which tools may run as tasks and shows the
 * declaration to its callers.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.jsonb('execution').nullable().comment("The tool's execution properties (taskSupport) as the upstream declares them, or null");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.dropColumn('execution');
  });
}
