import { hash } from 'node:crypto';
import type { BundleGrant } from '../domain/bundle-access.js';
import type { ToolOverride } from '../domain/tool-override.js';

/** One tool of a live bundle: the catalog tool id, a snapshot of where it lives, order, override. */
export interface LiveBundleTool {
  readonly toolId: string;
  readonly serverId: string;
  readonly serverName: string;
  /** Upstream name when the tool was added (the catalog's current one wins when present). */
  readonly toolName: string;
  readonly displayOrder: number;
  readonly override: ToolOverride;
}

/** A bundle as the MCP hot path reads it. Replaced (never mutated) on every change. */
export interface LiveBundle {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly keyHash: string;
  /** The user who created the bundle (null once that user is deleted): members reach the bundles they created on `/mcp/gateway`. */
  readonly createdBy: string | null;
  /** The teams and users it is shared with (`view` or `use`): with `createdBy`, who may use it on `/mcp/gateway`. */
  readonly shares: readonly BundleGrant[];
  /** Changes on every replacement; caches of derived answers key on it. */
  readonly version: number;
  /** In display order, ties broken by upstream name. */
  readonly tools: readonly LiveBundleTool[];
}

/** A change of one bundle; `remote` when it was made on another instance (and only applied here). */
export type BundleChange = { bundleId: string; kind: 'updated' | 'deleted'; keyChanged: boolean; remote?: boolean };

/** SHA-256 (hex) of a bundle key: the only form a key is looked up in. */
export function hashBundleKey(key: string): string {
  // crypto.hash: the one-shot form, about a third of createHash's cost (no Hash object per call).
  return hash('sha256', key, 'hex');
}

/**
 * Every bundle in memory, by id and by key hash: loaded at start, replaced after each committed
 * write, so an MCP request never waits on the database. Listeners hear of every change (to end
 * sessions of a replaced key and to tell open streams that the tool list changed).
 */
export class BundlesRegistry {
  private byId = new Map<string, LiveBundle>();
  private byHash = new Map<string, LiveBundle>();
  private listeners = new Set<(change: BundleChange) => void>();

  /** Replaces the whole registry (start-up). */
  load(bundles: Iterable<LiveBundle>): void {
    this.byId.clear();
    this.byHash.clear();
    for (const bundle of bundles) this.index(bundle);
  }

  /** The bundle a key opens, or undefined: hash lookup, no database. */
  byKey(key: string): LiveBundle | undefined {
    return this.byHash.get(hashBundleKey(key));
  }

  /** The bundle a key hash opens, or undefined. */
  byKeyHash(keyHash: string): LiveBundle | undefined {
    return this.byHash.get(keyHash);
  }

  get(id: string): LiveBundle | undefined {
    return this.byId.get(id);
  }

  /** Every bundle, in no particular order. */
  all(): IterableIterator<LiveBundle> {
    return this.byId.values();
  }

  /** Every bundle holding a tool of one of these servers. */
  bundlesOfServers(serverIds: ReadonlySet<string>): LiveBundle[] {
    return [...this.byId.values()].filter((b) => b.tools.some((t) => serverIds.has(t.serverId)));
  }

  get size(): number {
    return this.byId.size;
  }

  /** Puts (or replaces) a bundle after a committed write (`remote`: a write of another instance). */
  put(bundle: LiveBundle, remote = false): void {
    const previous = this.byId.get(bundle.id);
    if (previous) this.byHash.delete(previous.keyHash);
    this.index(bundle);
    this.emit({
      bundleId: bundle.id,
      kind: 'updated',
      keyChanged: !!previous && previous.keyHash !== bundle.keyHash,
      ...(remote ? { remote } : {}),
    });
  }

  /** Forgets a deleted bundle; its key stops working at once (`remote`: deleted by another instance). */
  remove(id: string, remote = false): void {
    const previous = this.byId.get(id);
    if (!previous) return;
    this.byId.delete(id);
    this.byHash.delete(previous.keyHash);
    this.emit({ bundleId: id, kind: 'deleted', keyChanged: true, ...(remote ? { remote } : {}) });
  }

  onChange(listener: (change: BundleChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private index(bundle: LiveBundle): void {
    this.byId.set(bundle.id, bundle);
    this.byHash.set(bundle.keyHash, bundle);
  }

  private emit(change: BundleChange): void {
    for (const l of this.listeners) l(change);
  }
}
