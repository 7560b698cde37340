import type { Knex } from 'knex';

/**
 * Upstream servers behind OAuth. A server gains an authorization mode and the OAuth client settings
 * an admin pre-registered (secret sealed). Three tables hold what Toolgate learns and keeps as an
 * OAuth client of upstream authorization servers:
 * - `upstream_oauth_clients`: the client registration per server and authorization server issuer
 *   (pre-registered, CIMD or DCR), so a changed issuer means a new registration;
 * - `upstream_oauth_flows`: pending authorization-code flows (state, PKCE verifier sealed, the
 *   issuer expected back in `iss`), short-lived;
 * - `upstream_oauth_tokens`: the vault, one row per (user, server, issuer), `user_id` null for the
 *   server's shared credential; tokens sealed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.text('auth_mode').notNullable().defaultTo('none');
    t.check("auth_mode in ('none', 'oauth_per_user', 'oauth_shared')", [], 'mcp_servers_auth_mode_check');
    t.text('oauth_client_id');
    t.text('oauth_client_secret_sealed');
    t.text('oauth_token_endpoint_auth_method');
    t.check(
      "oauth_token_endpoint_auth_method is null or oauth_token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none')",
      [],
      'mcp_servers_oauth_auth_method_check',
    );
    t.jsonb('oauth_scopes').notNullable().defaultTo('[]');
  });

  await knex.schema.createTable('upstream_oauth_clients', (t) => {
    t.uuid('id').primary();
    t.uuid('server_id')
      .notNullable()
      .references('id')
      .inTable('mcp_servers')
      .onDelete('CASCADE')
      .withKeyName('upstream_oauth_clients_server_fk');
    t.text('issuer').notNullable();
    t.text('kind').notNullable();
    t.check("kind in ('pre_registered', 'cimd', 'dcr')", [], 'upstream_oauth_clients_kind_check');
    t.text('client_id').notNullable();
    t.text('client_secret_sealed');
    t.text('token_endpoint_auth_method').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['server_id', 'issuer'], { indexName: 'upstream_oauth_clients_server_issuer_key' });
  });
  await knex.raw(
    "comment on table upstream_oauth_clients is 'Toolgate''s client registration at an upstream authorization server, per server and issuer.'",
  );

  await knex.schema.createTable('upstream_oauth_flows', (t) => {
    t.text('state_hash').primary();
    t.uuid('server_id')
      .notNullable()
      .references('id')
      .inTable('mcp_servers')
      .onDelete('CASCADE')
      .withKeyName('upstream_oauth_flows_server_fk');
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').withKeyName('upstream_oauth_flows_user_fk');
    t.boolean('shared').notNullable().defaultTo(false);
    t.text('issuer').notNullable();
    t.text('code_verifier_sealed').notNullable();
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "comment on table upstream_oauth_flows is 'Pending authorization-code flows toward upstream authorization servers (state hashed, PKCE verifier sealed).'",
  );

  await knex.schema.createTable('upstream_oauth_tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('server_id')
      .notNullable()
      .references('id')
      .inTable('mcp_servers')
      .onDelete('CASCADE')
      .withKeyName('upstream_oauth_tokens_server_fk');
    t.uuid('user_id').references('id').inTable('users').onDelete('CASCADE').withKeyName('upstream_oauth_tokens_user_fk');
    t.text('issuer').notNullable();
    t.text('access_token_sealed').notNullable();
    t.text('refresh_token_sealed');
    t.timestamp('expires_at', { useTz: true });
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.text('status').notNullable().defaultTo('active');
    t.check("status in ('active', 'needs_consent')", [], 'upstream_oauth_tokens_status_check');
    t.timestamp('refreshed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'create unique index upstream_oauth_tokens_user_key on upstream_oauth_tokens (server_id, user_id, issuer) where user_id is not null',
  );
  await knex.raw('create unique index upstream_oauth_tokens_shared_key on upstream_oauth_tokens (server_id, issuer) where user_id is null');
  await knex.raw('create index upstream_oauth_tokens_user_idx on upstream_oauth_tokens (user_id)');
  await knex.raw(
    "comment on table upstream_oauth_tokens is 'The token vault: upstream OAuth tokens per user, server and issuer (user_id null: the server''s shared credential), sealed with the master key.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('upstream_oauth_tokens');
  await knex.schema.dropTable('upstream_oauth_flows');
  await knex.schema.dropTable('upstream_oauth_clients');
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.dropChecks(['mcp_servers_auth_mode_check', 'mcp_servers_oauth_auth_method_check']);
    t.dropColumns('auth_mode', 'oauth_client_id', 'oauth_client_secret_sealed', 'oauth_token_endpoint_auth_method', 'oauth_scopes');
  });
}
