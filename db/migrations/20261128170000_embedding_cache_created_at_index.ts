import type { Knex } from 'knex';

/**
 * `embedding_cache` is now capped by its store: beyond the cap the oldest entries (by created_at)
 * go. The prune reads the entries newest first to find the cut; an index on created_at lets
 * PostgreSQL read them in that order instead of sorting the whole table (as `expansion_cache`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('embedding_cache', (t) => {
    t.index(['created_at'], 'embedding_cache_created_at_idx');
  });
  await knex.raw(
    "comment on table embedding_cache is 'Embedding vectors (float32, little-endian) of tool texts by SHA-256 of model and text; read and written by the tool search in the background, capped by the store.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    "comment on table embedding_cache is 'Embedding vectors (float32, little-endian) of tool texts by SHA-256 of model and text; read and written by the tool search in the background.'",
  );
  await knex.schema.alterTable('embedding_cache', (t) => {
    t.dropIndex(['created_at'], 'embedding_cache_created_at_idx');
  });
}
