import type { Knex } from 'knex';

/**
 * Teams and bundle sharing. A team holds users (`team_members`, each membership made by hand or
 * by an OAuth group claim at sign-in), and maps OAuth group claims to itself
 * (`team_oauth_groups`). A bundle is shared with a team or a user (`bundle_shares`, exactly one of
 * the two columns set), for viewing or for use on `/mcp/gateway`. Everything cascades: a deleted
 * team, user or bundle takes its memberships and shares with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('teams', (t) => {
    t.uuid('id').primary({ constraintName: 'teams_pkey' });
    t.text('name').notNullable();
    t.text('description');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index teams_name_lower_key on teams (lower(name))');
  await knex.raw("comment on table teams is 'Teams of users: bundles are shared with them.'");

  await knex.schema.createTable('team_members', (t) => {
    t.uuid('team_id').notNullable();
    t.foreign('team_id', 'team_members_team_id_fkey').references('teams.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable();
    t.foreign('user_id', 'team_members_user_id_fkey').references('users.id').onDelete('CASCADE');
    // 'manual' (an admin added it) or 'oauth:<provider_type>' (a group claim of that provider did).
    t.text('source').notNullable();
    t.timestamp('added_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['team_id', 'user_id'], { constraintName: 'team_members_pkey' });
    t.index(['user_id'], 'team_members_user_id_idx');
  });
  await knex.raw(
    "comment on table team_members is 'Who is in which team; source is manual or oauth:<provider_type> (a sign-in through that provider may remove the latter).'",
  );

  await knex.schema.createTable('team_oauth_groups', (t) => {
    t.uuid('team_id').notNullable();
    t.foreign('team_id', 'team_oauth_groups_team_id_fkey').references('teams.id').onDelete('CASCADE');
    t.text('provider_type').notNullable();
    t.text('group_name').notNullable();
    t.primary(['team_id', 'provider_type', 'group_name'], { constraintName: 'team_oauth_groups_pkey' });
    t.index(['provider_type', 'group_name'], 'team_oauth_groups_group_idx');
  });
  await knex.raw("comment on table team_oauth_groups is 'OAuth group claims that place a user in a team at sign-in.'");

  await knex.schema.createTable('bundle_shares', (t) => {
    t.uuid('bundle_id').notNullable();
    t.foreign('bundle_id', 'bundle_shares_bundle_id_fkey').references('bundles.id').onDelete('CASCADE');
    t.uuid('team_id');
    t.foreign('team_id', 'bundle_shares_team_id_fkey').references('teams.id').onDelete('CASCADE');
    t.uuid('user_id');
    t.foreign('user_id', 'bundle_shares_user_id_fkey').references('users.id').onDelete('CASCADE');
    t.text('access').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check('(team_id is null) <> (user_id is null)', [], 'bundle_shares_one_grantee_check');
    t.check("access in ('view', 'use')", [], 'bundle_shares_access_check');
    t.index(['bundle_id'], 'bundle_shares_bundle_id_idx');
    t.index(['team_id'], 'bundle_shares_team_id_idx');
    t.index(['user_id'], 'bundle_shares_user_id_idx');
  });
  await knex.raw('create unique index bundle_shares_team_key on bundle_shares (bundle_id, team_id) where team_id is not null');
  await knex.raw('create unique index bundle_shares_user_key on bundle_shares (bundle_id, user_id) where user_id is not null');
  await knex.raw(
    "comment on table bundle_shares is 'A bundle shared with a team or a user (exactly one), for view or use (served on their /mcp/gateway).'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bundle_shares');
  await knex.schema.dropTable('team_oauth_groups');
  await knex.schema.dropTable('team_members');
  await knex.schema.dropTable('teams');
}
