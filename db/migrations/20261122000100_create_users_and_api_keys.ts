import type { Knex } from 'knex';

/** Users (owner > admin > member) and their API keys (only a hash and a visible prefix stored). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary({ constraintName: 'users_pkey' });
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.text('auth_provider');
    t.text('auth_subject');
    t.timestamp('last_login_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("role in ('owner', 'admin', 'member')", [], 'users_role_check');
  });
  await knex.raw('create unique index users_email_lower_key on users (lower(email))');
  await knex.raw("comment on table users is 'People who use Toolgate; role decides what they may do.'");

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary({ constraintName: 'api_keys_pkey' });
    t.uuid('user_id').notNullable();
    t.foreign('user_id', 'api_keys_user_id_fkey').references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    t.text('key_prefix').notNullable();
    t.text('key_hash').notNullable();
    t.text('environment').notNullable();
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.integer('rate_limit_rpm');
    t.boolean('is_active').notNullable().defaultTo(true);
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.text('last_used_ip');
    t.timestamp('revoked_at', { useTz: true });
    t.uuid('rotated_from_id');
    t.timestamp('grace_period_ends_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['key_hash'], { indexName: 'api_keys_key_hash_key' });
    t.index(['user_id'], 'api_keys_user_id_idx');
    t.check("environment in ('live', 'test')", [], 'api_keys_environment_check');
  });
  await knex.raw("comment on table api_keys is 'User API keys: SHA-256 of the key and its visible prefix, never the key.'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('users');
}
