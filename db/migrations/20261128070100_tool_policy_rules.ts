import type { Knex } from 'knex';

/**
 * Tool policy rules: which tools are allowed or denied to whom (src/domain/tool-policy.ts). The
 * lists (servers, tools, bundles, teams, users) are JSON arrays: a rule is always read and
 * written whole, and the live policy compiles every rule into memory.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tool_policy_rules', (t) => {
    t.uuid('id').primary({ constraintName: 'tool_policy_rules_pkey' });
    t.text('name').notNullable();
    t.text('description');
    t.text('effect').notNullable();
    t.integer('priority').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.jsonb('servers').notNullable().defaultTo('[]');
    t.jsonb('tools').notNullable().defaultTo('[]');
    t.jsonb('bundles').notNullable().defaultTo('[]');
    t.jsonb('teams').notNullable().defaultTo('[]');
    t.jsonb('users').notNullable().defaultTo('[]');
    t.text('condition');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("effect in ('allow', 'deny')", [], 'tool_policy_rules_effect_check');
    t.index(['priority', 'id'], 'tool_policy_rules_order_idx');
  });
  await knex.raw(
    "comment on table tool_policy_rules is 'Tool policy: allow/deny rules by server, tool name or glob, bundle, for teams/users/everyone, with an optional CEL condition; read in ascending priority, first match decides.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('tool_policy_rules');
}
