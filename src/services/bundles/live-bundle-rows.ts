import type { LiveBundle } from '../../live/bundles-registry.js';
import type { DbBundleRow, DbBundleToolRow } from '../../stores/bundles-store.js';

/**
 * Stored bundle rows turned into the live form the MCP routes read (src/live/bundles-registry.ts).
 * The registry knows no rows; the bundles service converts them here after each committed write.
 */

let versionSeq = 0;

/** Builds the live form of a bundle from its rows; every call gives a new `version`. */
export function toLiveBundle(row: DbBundleRow, tools: readonly DbBundleToolRow[]): LiveBundle {
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

/** The live form of every bundle, from all bundle rows and all bundle tool rows (start-up). */
export function toLiveBundles(rows: readonly DbBundleRow[], tools: readonly DbBundleToolRow[]): LiveBundle[] {
  const byBundle = new Map<string, DbBundleToolRow[]>();
  for (const t of tools) {
    const list = byBundle.get(t.bundle_id) ?? [];
    list.push(t);
    byBundle.set(t.bundle_id, list);
  }
  return rows.map((row) => toLiveBundle(row, byBundle.get(row.id) ?? []));
}
