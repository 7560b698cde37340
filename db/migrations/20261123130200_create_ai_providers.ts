import type { Knex } from 'knex';

/**
 * AI provider configurations (LLM and embedding). The API key is sealed with the master key
 * (`api_key_sealed`, listed in src/stores/sealed-columns.ts); its masked form is kept beside it so
 * listings never open it. `endpoint_identity` is the normalised effective endpoint that defines a
 * duplicate; a partial unique index keeps at most one active provider per type.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ai_providers', (t) => {
    t.uuid('id').primary({ constraintName: 'ai_providers_pkey' });
    t.text('provider_type').notNullable();
    t.text('provider').notNullable();
    t.text('display_name').notNullable();
    t.text('model').notNullable();
    t.text('endpoint');
    t.text('endpoint_identity').notNullable();
    t.text('api_key_sealed');
    t.text('api_key_masked');
    t.jsonb('config').notNullable().defaultTo('{}');
    t.boolean('is_active').notNullable().defaultTo(false);
    t.boolean('connection_verified').notNullable().defaultTo(false);
    t.timestamp('connection_verified_at', { useTz: true });
    t.boolean('model_unavailable').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("provider_type in ('llm', 'embedding')", [], 'ai_providers_provider_type_check');
    t.check("provider in ('openai', 'anthropic', 'openai_compatible', 'ollama', 'vllm', 'lmstudio')", [], 'ai_providers_provider_check');
    t.check("not (provider = 'anthropic' and provider_type = 'embedding')", [], 'ai_providers_anthropic_llm_check');
    t.check('(api_key_sealed is null) = (api_key_masked is null)', [], 'ai_providers_api_key_check');
    t.unique(['provider_type', 'provider', 'model', 'endpoint_identity'], { indexName: 'ai_providers_identity_key' });
  });
  await knex.raw('create unique index ai_providers_one_active_key on ai_providers (provider_type) where is_active');
  await knex.raw(
    "comment on table ai_providers is 'AI provider configurations (llm, embedding): API key sealed with the master key, at most one active per provider_type.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ai_providers');
}
