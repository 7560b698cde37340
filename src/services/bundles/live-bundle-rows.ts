import type { LiveBundle } from '../../live/bundles-registry.js';
import type { BundleGrant } from '../../domain/bundle-access.js';
import type { DbBundleRow, DbBundleShareRow, DbBundleToolRow } from '../../stores/bundles-store.js';

/**
 * Stored bundle rows turned into the live form the MCP routes read (src/live/bundles-registry.ts).
 * The registry knows no rows; the bundles service converts them here after each committed write.
 */

let versionSeq = 0;

/** Builds the live form of a bundle from its rows; every call gives a new `version`. */
export function toLiveBundle(
  row: DbBundleRow,
  tools: readonly DbBundleToolRow[],
  shares: readonly Pick<DbBundleShareRow, 'team_id' | 'user_id' | 'access'>[] = [],
): LiveBundle {
  const sorted = [...tools].sort(
    (a, b) => a.display_order - b.display_order || (a.tool_name < b.tool_name ? -1 : a.tool_name > b.tool_name ? 1 : 0),
  );
  versionSeq += 1;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    keyHash: row.key_hash,
    createdBy: row.created_by,
    shares: shares.map(toGrant),
    version: versionSeq,
    tools: sorted.map((t) => ({
      toolId: t.tool_id,
      serverId: t.server_id,
      serverName: t.server_name,
      toolName: t.tool_name,
      displayOrder: t.display_order,
      override: t.override ?? {},
    })),
  };
}

/** A share row as the access rule reads it. */
export function toGrant(s: Pick<DbBundleShareRow, 'team_id' | 'user_id' | 'access'>): BundleGrant {
  return s.team_id !== null ? { grantee: 'team', id: s.team_id, access: s.access } : { grantee: 'user', id: s.user_id!, access: s.access };
}

/** The live form of every bundle, from all bundle, bundle tool and share rows (start-up). */
export function toLiveBundles(
  rows: readonly DbBundleRow[],
  tools: readonly DbBundleToolRow[],
  shares: readonly DbBundleShareRow[] = [],
): LiveBundle[] {
  const byBundle = groupBy(tools);
  const sharesOf = groupBy(shares);
  return rows.map((row) => toLiveBundle(row, byBundle.get(row.id) ?? [], sharesOf.get(row.id) ?? []));
}

function groupBy<T extends { bundle_id: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.bundle_id) ?? [];
    list.push(r);
    out.set(r.bundle_id, list);
  }
  return out;
}
