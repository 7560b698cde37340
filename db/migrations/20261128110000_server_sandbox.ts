import type { Knex } from 'knex';

/**
 * Sandboxed stdio servers: `sandboxed` runs the server in Toolgate's jail (own uid, minimal
 * environment, private network namespace); `network_approved` is the host:port list its egress
 * proxy lets through (empty: no network), and `network_requested` the hosts it asked for that no
 * admin has answered yet (null: nothing pending). Servers registered before keep running as they
 * were (generated ones already carry their jail in their command line).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.boolean('sandboxed').notNullable().defaultTo(false);
    t.jsonb('network_approved').notNullable().defaultTo('[]');
    t.jsonb('network_requested').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.dropColumn('network_requested');
    t.dropColumn('network_approved');
    t.dropColumn('sandboxed');
  });
}
