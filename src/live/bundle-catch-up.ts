import type { Logger } from '../logger.js';
import type { LiveBundle } from './bundles-registry.js';

export interface BundleCatchUpOptions {
  /** Reads the bundle of a key hash into the registry (BundlesService.catchUpByKeyHash). */
  read(keyHash: string): Promise<LiveBundle | undefined>;
  logger: Logger;
  /** Reads at once at most; a miss beyond them is answered as unknown without one. */
  maxInFlight?: number;
  /** How long a key hash the database did not know is answered as unknown without asking again. */
  missTtlMs?: number;
  /** Unknown key hashes remembered at most (the oldest are forgotten first). */
  maxMisses?: number;
  now?: () => number;
}

/**
 * What an instance of several does with a bundle key its registry does not know: a bundle
 * created, or a key rotated, on another instance is in the database a moment before its change
 * message arrives, and a client handed the new key may call this instance in that moment. The
 * key's hash is looked up in the database once; the same key asked again meanwhile waits for that
 * one read. Unknown keys cost the database little: a key the database did not know is answered
 * from memory for `missTtlMs`, and at most `maxInFlight` reads run at once (a flood of random keys
 * gets 404 without a query). A change to any bundle forgets the remembered misses.
 */
export class BundleCatchUp {
  private readonly inFlight = new Map<string, Promise<LiveBundle | undefined>>();
  private readonly misses = new Map<string, number>();
  private readonly maxInFlight: number;
  private readonly missTtlMs: number;
  private readonly maxMisses: number;
  private readonly now: () => number;

  constructor(private readonly options: BundleCatchUpOptions) {
    this.maxInFlight = options.maxInFlight ?? 8;
    this.missTtlMs = options.missTtlMs ?? 2000;
    this.maxMisses = options.maxMisses ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The bundle behind a key hash the registry missed, read from the database (or undefined). */
  lookup(keyHash: string): Promise<LiveBundle | undefined> {
    const pending = this.inFlight.get(keyHash);
    if (pending) return pending;
    const until = this.misses.get(keyHash);
    if (until !== undefined) {
      if (until > this.now()) return Promise.resolve(undefined);
      this.misses.delete(keyHash);
    }
    if (this.inFlight.size >= this.maxInFlight) return Promise.resolve(undefined);
    const read = this.options
      .read(keyHash)
      .then((bundle) => {
        if (!bundle) this.rememberMiss(keyHash);
        return bundle;
      })
      .catch((err: unknown) => {
        // The database is unreachable: the key is unknown for now, and not remembered as such.
        this.options.logger.warn(
          { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
          'could not look up a bundle key',
        );
        return undefined;
      })
      .finally(() => this.inFlight.delete(keyHash));
    this.inFlight.set(keyHash, read);
    return read;
  }

  /** Forgets every remembered miss (a bundle changed: one of those keys may open it now). */
  forgetMisses(): void {
    this.misses.clear();
  }

  private rememberMiss(keyHash: string): void {
    if (this.misses.size >= this.maxMisses) this.misses.delete(this.misses.keys().next().value!);
    this.misses.set(keyHash, this.now() + this.missTtlMs);
  }
}
