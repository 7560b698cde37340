import type { Knex } from 'knex';
import { ContentCacheBound } from './content-cache-bound.js';

export interface DbExpansionCacheRow {
  content_hash: string;
  expansion: string;
  created_at: Date;
}

/**
 * Entries kept by default: several times the tools of a large deployment (the search benchmark
 * indexes 10,000), at most a few hundred bytes each, so the table stays in the tens of MiB.
 */
export const EXPANSION_CACHE_MAX_ENTRIES = 50_000;

/**
 * Persistence of the tool search's description expansions by content hash (the search's
 * `ExpansionCache`), so a restart does not ask the LLM provider again for texts it already
 * expanded. Writes never overwrite: the same hash always means the same model and text. Bounded:
 * beyond `maxEntries` the oldest entries go (checked on the first write and every few hundred new
 * entries after), and an evicted text that is still in use is simply expanded again.
 */
export class ExpansionCacheStore {
  private readonly bound: ContentCacheBound;

  constructor(
    private readonly db: Knex | Knex.Transaction,
    maxEntries = EXPANSION_CACHE_MAX_ENTRIES,
  ) {
    this.bound = new ContentCacheBound('expansion_cache', maxEntries);
  }

  /** The stored expansions among `hashes`. */
  async getMany(hashes: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.bound.getMany<Pick<DbExpansionCacheRow, 'content_hash' | 'expansion'>>(this.db, hashes, [
      'content_hash',
      'expansion',
    ]);
    return new Map(rows.map((row) => [row.content_hash, row.expansion]));
  }

  /** Stores expansions; hashes already stored are left alone. May prune the oldest beyond the cap. */
  async putMany(entries: readonly { hash: string; text: string }[]): Promise<void> {
    await this.bound.insert(
      this.db,
      entries.map((e) => ({ content_hash: e.hash, expansion: e.text })),
    );
  }

  /** Deletes the oldest entries beyond the cap; returns how many went. */
  prune(): Promise<number> {
    return this.bound.prune(this.db);
  }

  /** Number of stored entries. */
  async count(): Promise<number> {
    const [row] = await this.db('expansion_cache').count<{ count: string | number }[]>({ count: '*' });
    return Number(row?.count ?? 0);
  }
}
