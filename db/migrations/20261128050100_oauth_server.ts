import type { Knex } from 'knex';

/**
 * Toolgate's own OAuth authorization server, for MCP clients reaching `/mcp/gateway`:
 * - oauth_clients: clients registered dynamically (RFC 7591) or by an admin; clients identified by
 *   a metadata document URL (CIMD) are fetched and cached in memory, never stored;
 * - oauth_authorizations: one authorization request from the moment it arrives until its code is
 *   redeemed (or it expires): what was asked, the person's decision, and the code's hash;
 * - oauth_grants: one approved connection of a client to a person for one resource (the "connected
 *   app" a person sees and revokes); revoking it kills every token of it;
 * - oauth_tokens: the access and refresh tokens of a grant, stored as SHA-256 hashes only. A
 *   refresh token is used once (rotated); a second use revokes the whole grant (reuse detection).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_clients', (t) => {
    t.uuid('id').primary({ constraintName: 'oauth_clients_pkey' });
    t.text('client_id').notNullable().unique({ indexName: 'oauth_clients_client_id_unique' });
    t.text('source').notNullable();
    t.text('name').notNullable();
    t.jsonb('redirect_uris').notNullable();
    t.text('application_type').notNullable();
    t.text('client_uri');
    t.text('status').notNullable();
    t.uuid('created_by');
    t.foreign('created_by', 'oauth_clients_created_by_fkey').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.check("source in ('dynamic', 'admin')", [], 'oauth_clients_source_check');
    t.check("status in ('active', 'pending')", [], 'oauth_clients_status_check');
  });
  await knex.raw(
    "comment on table oauth_clients is 'OAuth clients of the MCP authorization server: dynamically registered (RFC 7591) or pre-registered by an admin.'",
  );

  await knex.schema.createTable('oauth_grants', (t) => {
    t.uuid('id').primary({ constraintName: 'oauth_grants_pkey' });
    t.text('client_id').notNullable();
    t.text('client_name').notNullable();
    t.uuid('user_id').notNullable();
    t.foreign('user_id', 'oauth_grants_user_id_fkey').references('users.id').onDelete('CASCADE');
    t.text('resource').notNullable();
    t.text('scope').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_reason');
    t.index(['user_id'], 'oauth_grants_user_id_idx');
    t.index(['client_id'], 'oauth_grants_client_id_idx');
  });
  await knex.raw(
    "comment on table oauth_grants is 'Connected apps: a client approved by a person for one resource; revoked_at ends every token of it.'",
  );

  await knex.schema.createTable('oauth_authorizations', (t) => {
    t.text('id').primary({ constraintName: 'oauth_authorizations_pkey' });
    t.text('client_id').notNullable();
    t.text('client_name').notNullable();
    t.text('redirect_uri').notNullable();
    t.text('scope').notNullable();
    t.text('state');
    t.text('code_challenge').notNullable();
    t.text('resource').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.uuid('user_id');
    t.foreign('user_id', 'oauth_authorizations_user_id_fkey').references('users.id').onDelete('CASCADE');
    t.text('decision');
    t.text('code_hash').unique({ indexName: 'oauth_authorizations_code_hash_unique' });
    t.timestamp('code_expires_at', { useTz: true });
    t.timestamp('code_used_at', { useTz: true });
    t.uuid('grant_id');
    t.foreign('grant_id', 'oauth_authorizations_grant_id_fkey').references('oauth_grants.id').onDelete('CASCADE');
    t.index(['expires_at'], 'oauth_authorizations_expires_at_idx');
  });
  await knex.raw(
    "comment on table oauth_authorizations is 'Pending and decided OAuth authorization requests; code_hash is the SHA-256 of the authorization code, never the code.'",
  );

  await knex.schema.createTable('oauth_tokens', (t) => {
    t.text('token_hash').primary({ constraintName: 'oauth_tokens_pkey' });
    t.uuid('grant_id').notNullable();
    t.foreign('grant_id', 'oauth_tokens_grant_id_fkey').references('oauth_grants.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.check("kind in ('access', 'refresh')", [], 'oauth_tokens_kind_check');
    t.index(['grant_id'], 'oauth_tokens_grant_id_idx');
    t.index(['expires_at'], 'oauth_tokens_expires_at_idx');
  });
  await knex.schema.alterTable('general_settings', (t) => {
    t.text('oauth_client_registration');
  });
  await knex.raw(
    "comment on table oauth_tokens is 'OAuth access and refresh tokens, as SHA-256 hashes only; used_at marks a rotated refresh token.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('general_settings', (t) => {
    t.dropColumn('oauth_client_registration');
  });
  await knex.schema.dropTable('oauth_tokens');
  await knex.schema.dropTable('oauth_authorizations');
  await knex.schema.dropTable('oauth_grants');
  await knex.schema.dropTable('oauth_clients');
}
