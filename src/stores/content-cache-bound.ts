import type { Knex } from 'knex';

/** Hashes per statement (well under PostgreSQL's 65,535 bind parameters). */
export const HASH_CHUNK = 500;
/** New entries written between two prunes: a prune reads every entry's age, so it is not run per batch. */
const PRUNE_EVERY = 256;
/**
 * Entries per delete statement. A big delete (the first prune of a table that grew before the cap,
 * a whole embedding model after a switch) runs as several short statements: one statement for
 * 150,000 entries outlasted PostgreSQL's default 5 s statement limit (bench/embedding-cache.ts),
 * failed, and so never shrank the table; and the embedded database serves nothing else meanwhile.
 */
const DELETE_CHUNK = 5_000;

/**
 * The bound of a cache table keyed by `content_hash` with a `created_at` (the embedding and the
 * description-expansion caches): beyond `maxEntries` the oldest entries go, checked on a process's
 * first write and then every {@link PRUNE_EVERY} new entries, deleted {@link DELETE_CHUNK} per
 * statement. An evicted entry still in use is simply computed again.
 */
export class ContentCacheBound {
  private insertedSincePrune = 0;
  private prunedOnce = false;

  constructor(
    private readonly table: string,
    readonly maxEntries: number,
  ) {}

  /** Inserts `rows`, leaving hashes already stored alone; prunes when due. */
  async insert(db: Knex | Knex.Transaction, rows: readonly { content_hash: string }[]): Promise<void> {
    for (let i = 0; i < rows.length; i += HASH_CHUNK) {
      const chunk = rows.slice(i, i + HASH_CHUNK);
      const inserted = await db(this.table).insert(chunk).onConflict('content_hash').ignore().returning('content_hash');
      this.insertedSincePrune += inserted.length;
    }
    if (this.insertedSincePrune > 0 && (!this.prunedOnce || this.insertedSincePrune >= PRUNE_EVERY)) await this.prune(db);
  }

  /** Deletes the oldest entries beyond the cap; returns how many went. */
  async prune(db: Knex | Knex.Transaction): Promise<number> {
    this.prunedOnce = true;
    this.insertedSincePrune = 0;
    return this.deleteInChunks(db, () =>
      db(this.table)
        .select('content_hash')
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'content_hash', order: 'desc' },
        ])
        .offset(this.maxEntries),
    );
  }

  /** Deletes the entries `select` names (a query of content hashes), a chunk per statement. */
  async deleteInChunks(db: Knex | Knex.Transaction, select: () => Knex.QueryBuilder): Promise<number> {
    let deleted = 0;
    for (;;) {
      const n = (await db(this.table).whereIn('content_hash', select().limit(DELETE_CHUNK)).delete().returning('content_hash')).length;
      deleted += n;
      if (n < DELETE_CHUNK) return deleted;
    }
  }

  /** The stored rows among `hashes` (each hash once), `columns` read. */
  async getMany<Row>(db: Knex | Knex.Transaction, hashes: readonly string[], columns: readonly string[]): Promise<Row[]> {
    const unique = [...new Set(hashes)];
    const out: Row[] = [];
    for (let i = 0; i < unique.length; i += HASH_CHUNK)
      out.push(
        ...((await db(this.table)
          .select(columns)
          .whereIn('content_hash', unique.slice(i, i + HASH_CHUNK))) as Row[]),
      );
    return out;
  }
}
