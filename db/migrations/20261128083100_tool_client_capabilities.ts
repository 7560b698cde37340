import type { Knex } from 'knex';

/**
 * The client features (`sampling`, `elicitation`, `roots`) an upstream lists a tool to only when
 * the client declares them, found at catalog sync; null when the tool is listed to any client.
 * The MCP endpoints hide such a tool from a caller that did not declare them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.jsonb('client_capabilities').nullable().comment('Client features the upstream lists this tool to only (null: any client)');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.dropColumn('client_capabilities');
  });
}
