import type { Knex } from 'knex';

/**
 * Pinned tool definitions. When a tool is selected (approved), the hash of its effective
 * definition (description, input schema, annotations) and the definition itself are kept;
 * `definition_hash` is the hash of what the upstream offers now. While the two differ the tool is
 * withheld everywhere until an admin approves the change (or the server accepts changes).
 * Existing selected tools are pinned as they are now, on their next sync.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.text('definition_hash');
    t.text('pinned_hash');
    t.jsonb('pinned_definition');
    t.timestamp('changed_at', { useTz: true });
  });
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.text('tool_changes').notNullable().defaultTo('require_approval');
    t.check("tool_changes in ('require_approval', 'accept')", [], 'mcp_servers_tool_changes_check');
  });
  await knex.raw(
    "comment on column mcp_tools.pinned_hash is 'Hash of the approved definition (description, input schema, annotations); the tool is withheld while definition_hash differs.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.dropChecks(['mcp_servers_tool_changes_check']);
    t.dropColumn('tool_changes');
  });
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.dropColumns('definition_hash', 'pinned_hash', 'pinned_definition', 'changed_at');
  });
}
