import type { Knex } from 'knex';

export interface DbExpansionCacheRow {
  content_hash: string;
  expansion: string;
  created_at: Date;
}

/** Hashes per statement (well under PostgreSQL's 65,535 bind parameters). */
const CHUNK = 500;
/**
 * Entries kept by default: several times the tools of a large deployment (the search benchmark
 * indexes 10,000), at most a few hundred bytes each, so the table stays in the tens of MiB.
 */
export const EXPANSION_CACHE_MAX_ENTRIES = 50_000;
/** New entries written between two prunes: a prune scans the index, so it is not run per batch. */
const PRUNE_EVERY = 256;

/**
 * Persistence of the tool search's description expansions by content hash (the search's
 * `ExpansionCache`), so a restart does not ask the LLM provider again for texts it already
 * expanded. Writes never overwrite: the same hash always means the same model and text. Bounded:
 * beyond `maxEntries` the oldest entries go (checked on the first write and every few hundred new
 * entries after), and an evicted text that is still in use is simply expanded again.
 */
export class ExpansionCacheStore {
  private insertedSincePrune = 0;
  private prunedOnce = false;

  constructor(
    private readonly db: Knex | Knex.Transaction,
    private readonly maxEntries = EXPANSION_CACHE_MAX_ENTRIES,
  ) {}

  /** The stored expansions among `hashes`. */
  async getMany(hashes: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const unique = [...new Set(hashes)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows: Pick<DbExpansionCacheRow, 'content_hash' | 'expansion'>[] = await this.db('expansion_cache')
        .select('content_hash', 'expansion')
        .whereIn('content_hash', unique.slice(i, i + CHUNK));
      for (const row of rows) out.set(row.content_hash, row.expansion);
    }
    return out;
  }

  /** Stores expansions; hashes already stored are left alone. May prune the oldest beyond the cap. */
  async putMany(entries: readonly { hash: string; text: string }[]): Promise<void> {
    for (let i = 0; i < entries.length; i += CHUNK) {
      const rows = entries.slice(i, i + CHUNK).map((e) => ({ content_hash: e.hash, expansion: e.text }));
      if (!rows.length) continue;
      const inserted = await this.db('expansion_cache').insert(rows).onConflict('content_hash').ignore().returning('content_hash');
      this.insertedSincePrune += inserted.length;
    }
    if (this.insertedSincePrune > 0 && (!this.prunedOnce || this.insertedSincePrune >= PRUNE_EVERY)) await this.prune();
  }

  /** Deletes the oldest entries beyond the cap; returns how many went. */
  async prune(): Promise<number> {
    this.prunedOnce = true;
    this.insertedSincePrune = 0;
    const beyondCap = this.db('expansion_cache')
      .select('content_hash')
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'content_hash', order: 'desc' },
      ])
      .offset(this.maxEntries);
    return (await this.db('expansion_cache').whereIn('content_hash', beyondCap).delete().returning('content_hash')).length;
  }

  /** Number of stored entries. */
  async count(): Promise<number> {
    const [row] = await this.db('expansion_cache').count<{ count: string | number }[]>({ count: '*' });
    return Number(row?.count ?? 0);
  }
}
