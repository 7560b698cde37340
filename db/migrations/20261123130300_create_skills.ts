import type { Knex } from 'knex';

/**
 * Agent Skills: the skill library (SKILL.md body and frontmatter, bundled text files), the links
 * of skills to servers, and the script tools those links register. Script tools are rows of
 * `mcp_tools` (so bundles, tool selection and the catalog treat them like any tool) marked with
 * the attachment that registered them; deleting the attachment deletes them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('skills', (t) => {
    t.uuid('id').primary({ constraintName: 'skills_pkey' });
    t.text('name').notNullable();
    t.text('description').notNullable();
    t.text('content').notNullable();
    t.jsonb('frontmatter').notNullable().defaultTo('{}');
    // The parsed workflow definition (workflow.yaml / workflow.json), null when there is none.
    t.jsonb('workflow');
    t.text('source');
    t.text('source_url');
    t.text('version');
    t.jsonb('tags').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['name'], { indexName: 'skills_name_key' });
  });
  await knex.raw("comment on table skills is 'Agent Skills: SKILL.md body, frontmatter and parsed workflow definition.'");

  await knex.schema.createTable('skill_files', (t) => {
    t.uuid('skill_id').notNullable();
    t.foreign('skill_id', 'skill_files_skill_id_fkey').references('skills.id').onDelete('CASCADE');
    t.text('path').notNullable();
    t.text('content').notNullable();
    t.primary(['skill_id', 'path'], { constraintName: 'skill_files_pkey' });
  });
  await knex.raw("comment on table skill_files is 'Text files bundled with a skill (scripts, references, workflow definition).'");

  await knex.schema.createTable('skill_attachments', (t) => {
    t.uuid('id').primary({ constraintName: 'skill_attachments_pkey' });
    t.uuid('skill_id').notNullable();
    t.foreign('skill_id', 'skill_attachments_skill_id_fkey').references('skills.id').onDelete('CASCADE');
    t.uuid('server_id').notNullable();
    t.foreign('server_id', 'skill_attachments_server_id_fkey').references('mcp_servers.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['server_id', 'skill_id'], { indexName: 'skill_attachments_server_id_skill_id_key' });
    t.index(['skill_id'], 'skill_attachments_skill_id_idx');
  });
  await knex.raw(
    "comment on table skill_attachments is 'Skills attached to servers; each registers the skill''s script tools on the server.'",
  );

  await knex.schema.alterTable('mcp_tools', (t) => {
    t.uuid('skill_attachment_id');
    t.foreign('skill_attachment_id', 'mcp_tools_skill_attachment_id_fkey').references('skill_attachments.id').onDelete('CASCADE');
    t.index(['skill_attachment_id'], 'mcp_tools_skill_attachment_id_idx');
  });
  await knex.raw(
    "comment on column mcp_tools.skill_attachment_id is 'Set on script tools: the skill attachment that registered the tool (it runs in the gateway sandbox, not upstream).'",
  );
}

export async function down(knex: Knex): Promise<void> {
  // Script tools exist only through their attachment.
  await knex('mcp_tools').whereNotNull('skill_attachment_id').delete();
  await knex.schema.alterTable('mcp_tools', (t) => {
    t.dropForeign(['skill_attachment_id'], 'mcp_tools_skill_attachment_id_fkey');
    t.dropIndex(['skill_attachment_id'], 'mcp_tools_skill_attachment_id_idx');
    t.dropColumn('skill_attachment_id');
  });
  await knex.schema.dropTable('skill_attachments');
  await knex.schema.dropTable('skill_files');
  await knex.schema.dropTable('skills');
}
