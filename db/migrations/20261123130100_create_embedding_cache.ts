import type { Knex } from 'knex';

/**
 * Embeddings of tool texts for semantic tool search, keyed by content hash (SHA-256 of model and
 * text): a text is embedded once per model, whichever tool, bundle or instance needs it, and
 * survives restarts. Rows are never updated; an entry nothing refers to any more is harmless.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('embedding_cache', (t) => {
    t.text('content_hash').primary({ constraintName: 'embedding_cache_pkey' });
    t.text('model').notNullable();
    t.integer('dimensions').notNullable();
    t.binary('vector').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['model'], 'embedding_cache_model_idx');
    t.check('dimensions > 0 and octet_length(vector) = 4 * dimensions', [], 'embedding_cache_vector_check');
  });
  await knex.raw(
    "comment on table embedding_cache is 'Embedding vectors (float32, little-endian) of tool texts by SHA-256 of model and text; read and written by the tool search in the background.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('embedding_cache');
}
