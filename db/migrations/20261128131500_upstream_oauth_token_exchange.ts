import type { Knex } from 'knex';

/**
 * Upstream OAuth, continued: a fourth authorization mode, `oauth_token_exchange` (RFC 8693: Toolgate
 * presents a token of its own naming the calling user to the upstream's authorization server), and
 * `private_key_jwt` client authentication for pre-registered clients (RFC 7523; the PEM private key
 * is kept sealed in `oauth_client_secret_sealed`). Toolgate's own signing keys, which sign those
 * subject tokens and are published as its JWKS, live in `toolgate_signing_keys` (private key sealed).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.dropChecks(['mcp_servers_auth_mode_check', 'mcp_servers_oauth_auth_method_check']);
  });
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.check("auth_mode in ('none', 'oauth_per_user', 'oauth_shared', 'oauth_token_exchange')", [], 'mcp_servers_auth_mode_check');
    t.check(
      "oauth_token_endpoint_auth_method is null or oauth_token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none')",
      [],
      'mcp_servers_oauth_auth_method_check',
    );
  });
  await knex.schema.createTable('toolgate_signing_keys', (t) => {
    t.text('kid').primary();
    t.text('alg').notNullable();
    t.text('private_key_sealed').notNullable();
    t.jsonb('public_jwk').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "comment on table toolgate_signing_keys is 'Toolgate''s own signing keys (private key sealed): they sign the subject tokens of upstream token exchange and are published as its JWKS.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('toolgate_signing_keys');
  await knex('mcp_servers').where({ auth_mode: 'oauth_token_exchange' }).update({ auth_mode: 'none' });
  await knex('mcp_servers')
    .where({ oauth_token_endpoint_auth_method: 'private_key_jwt' })
    .update({ oauth_token_endpoint_auth_method: null, oauth_client_secret_sealed: null });
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.dropChecks(['mcp_servers_auth_mode_check', 'mcp_servers_oauth_auth_method_check']);
  });
  await knex.schema.alterTable('mcp_servers', (t) => {
    t.check("auth_mode in ('none', 'oauth_per_user', 'oauth_shared')", [], 'mcp_servers_auth_mode_check');
    t.check(
      "oauth_token_endpoint_auth_method is null or oauth_token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none')",
      [],
      'mcp_servers_oauth_auth_method_check',
    );
  });
}
