import type { Knex } from 'knex';

/**
 * Identity and access: auth settings (one row), OAuth login providers (client secret sealed),
 * browser sessions (signed tokens, revocable), invitations (token stored hashed) and each user's
 * gateway settings.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auth_settings', (t) => {
    t.integer('id').primary({ constraintName: 'auth_settings_pkey' });
    t.jsonb('allowed_domains').notNullable().defaultTo('[]');
    t.jsonb('admin_emails').notNullable().defaultTo('[]');
    t.integer('access_token_expire_minutes').notNullable().defaultTo(1440);
    t.integer('api_key_max_lifetime_days');
    t.timestamp('updated_at', { useTz: true });
    t.check('id = 1', [], 'auth_settings_single_row_check');
  });
  await knex.raw("comment on table auth_settings is 'Global authentication settings: a single row (id 1), created on first change.'");

  await knex.schema.createTable('oauth_providers', (t) => {
    t.uuid('id').primary({ constraintName: 'oauth_providers_pkey' });
    t.text('provider_type').notNullable();
    t.text('display_name').notNullable();
    t.text('client_id').notNullable();
    t.text('client_secret_sealed');
    t.boolean('is_enabled').notNullable().defaultTo(true);
    t.integer('display_order').notNullable().defaultTo(0);
    t.jsonb('config').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['provider_type'], { indexName: 'oauth_providers_provider_type_key' });
  });
  await knex.raw(
    "comment on table oauth_providers is 'OAuth login providers; the client secret is sealed (AES-256-GCM) and never returned.'",
  );

  await knex.schema.createTable('sessions', (t) => {
    t.uuid('id').primary({ constraintName: 'sessions_pkey' });
    t.uuid('user_id').notNullable();
    t.foreign('user_id', 'sessions_user_id_fkey').references('users.id').onDelete('CASCADE');
    t.text('auth_provider');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['user_id'], 'sessions_user_id_idx');
    t.index(['expires_at'], 'sessions_expires_at_idx');
  });
  await knex.raw("comment on table sessions is 'Browser sessions behind the signed access_token cookie; revoked on logout.'");

  await knex.schema.createTable('invitations', (t) => {
    t.uuid('id').primary({ constraintName: 'invitations_pkey' });
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.text('token_hash').notNullable();
    t.uuid('invited_by').notNullable();
    t.foreign('invited_by', 'invitations_invited_by_fkey').references('users.id').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('accepted_at', { useTz: true });
    t.uuid('accepted_user_id');
    t.foreign('accepted_user_id', 'invitations_accepted_user_id_fkey').references('users.id').onDelete('SET NULL');
    t.timestamp('revoked_at', { useTz: true });
    t.unique(['token_hash'], { indexName: 'invitations_token_hash_key' });
    t.check("role in ('owner', 'admin', 'member')", [], 'invitations_role_check');
  });
  await knex.raw('create index invitations_email_lower_idx on invitations (lower(email))');
  await knex.raw("comment on table invitations is 'Invitations to join; only the SHA-256 of the token is stored.'");

  await knex.schema.createTable('gateway_settings', (t) => {
    t.uuid('user_id').primary({ constraintName: 'gateway_settings_pkey' });
    t.foreign('user_id', 'gateway_settings_user_id_fkey').references('users.id').onDelete('CASCADE');
    t.text('mode').notNullable().defaultTo('direct');
    t.jsonb('bundle_ids').notNullable().defaultTo('[]');
    t.integer('search_result_limit').notNullable().defaultTo(10);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("mode in ('direct', 'search_execute')", [], 'gateway_settings_mode_check');
  });
  await knex.raw("comment on table gateway_settings is 'How /mcp/gateway serves each user; absent row = defaults.'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('gateway_settings');
  await knex.schema.dropTable('invitations');
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('oauth_providers');
  await knex.schema.dropTable('auth_settings');
}
