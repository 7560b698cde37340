/**
 * The tool selection step of a configuration import: each listed tool of a server takes the
 * listed state (enabled or not); a name the server has not offered yet becomes a pending tool.
 */
import { RequestValidationError, type ValidationIssue } from '../../../errors.js';
import type { DbServerRow } from '../../../stores/servers-store.js';
import { addPendingTool, toolsOf, touch } from './catalog-tools.js';
import { at, type ImportRun } from './import-run.js';

/** Tool selection: the listed tools take the listed state; unknown names become pending tools. */
export async function applyToolSelection(run: ImportRun, servers: Map<string, DbServerRow>): Promise<void> {
  const { stores, doc, out, after } = run;
  const issues: ValidationIssue[] = [];
  for (const [serverName, tools] of Object.entries(doc.tool_selection ?? {})) {
    const server = servers.get(serverName.toLowerCase());
    if (!server) {
      issues.push(at(['tool_selection', serverName], `No server is named "${serverName}"`, 'unknown_server', serverName));
      continue;
    }
    const rows = await toolsOf(stores, server.id);
    for (const [toolName, enabled] of Object.entries(tools)) {
      const row = rows.get(toolName);
      if (!row) {
        await addPendingTool(run, server, toolName, enabled, rows);
        continue;
      }
      if (row.enabled === enabled) continue;
      await stores.catalog.setToolsEnabled([row.id], enabled);
      row.enabled = enabled;
      touch(after, server);
      out.push({ kind: 'tool', name: `${server.name}/${toolName}`, action: 'update', fields: ['enabled'] });
    }
  }
  if (issues.length) throw new RequestValidationError(issues);
}
