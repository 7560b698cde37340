import type { Knex } from 'knex';

/**
 * Search wording the active LLM provider wrote for tool texts (description expansion), keyed by
 * the expansion hash (SHA-256 of model and text): a text is expanded once per model and survives
 * restarts, so a restart spends no tokens on tools that did not change. Rows are never updated;
 * the store keeps the newest entries up to a cap (created_at, indexed, says which go first).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('expansion_cache', (t) => {
    t.text('content_hash').primary({ constraintName: 'expansion_cache_pkey' });
    t.text('expansion').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at'], 'expansion_cache_created_at_idx');
  });
  await knex.raw(
    "comment on table expansion_cache is 'LLM-written search wording of tool texts by SHA-256 of model and text; read and written by the tool search in the background, capped by the store.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('expansion_cache');
}
