/**
 * The catalog tools a document names, by server and upstream name, for the tool selection and
 * bundle steps of an import. A tool a server has not offered yet (a server the same import
 * registers has not connected) is recorded as a pending catalog row, unavailable with an empty
 * schema; the server's first sync fills it in by name, keeping its id and selection.
 */
import { randomUUID } from 'node:crypto';
import type { DbToolRow } from '../../../stores/catalog-store.js';
import type { DbServerRow } from '../../../stores/servers-store.js';
import type { Stores } from '../../../stores/transactor.js';
import type { AfterCommit, ImportRun } from './import-run.js';

/** The upstream tools of a server by name (script tools of skills are not the document's). */
export async function toolsOf(stores: Stores, serverId: string): Promise<Map<string, DbToolRow>> {
  const rows = await stores.catalog.toolsOfServers([serverId]);
  return new Map(rows.filter((t) => t.skill_attachment_id === null).map((t) => [t.name, t]));
}

/** Records a pending catalog row for a tool the server has not offered yet, and notes the change. */
export async function addPendingTool(
  { stores, out, after }: ImportRun,
  server: DbServerRow,
  name: string,
  enabled: boolean,
  rows: Map<string, DbToolRow>,
): Promise<DbToolRow> {
  const id = randomUUID();
  await stores.catalog.insertPendingTool({ id, server_id: server.id, name, enabled });
  const row = (await stores.catalog.toolsOfServers([server.id])).find((t) => t.id === id)!;
  rows.set(name, row);
  touch(after, server);
  out.push({ kind: 'tool', name: `${server.name}/${name}`, action: 'create', fields: [] });
  return row;
}

/** Notes a server whose catalog the import changed (reloaded after the commit; reconnected only if its row changed). */
export function touch(after: AfterCommit, server: DbServerRow): void {
  if (!after.touchedServers.has(server.id)) after.touchedServers.set(server.id, { row: server, reconnect: false });
}
