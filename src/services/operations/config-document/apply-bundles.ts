/**
 * The bundles step of a configuration import: a bundle the document names is created when new
 * (with a fresh bundle key); an existing one takes exactly the document's details, tools, order
 * and overrides. Bundle tools name catalog tools by server and upstream name; one the server has
 * not offered yet becomes a pending tool, so the bundle's tools appear as soon as it connects.
 * Overrides are checked against the tool's schema where the catalog knows it.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, RequestValidationError, type ValidationIssue } from '../../../errors.js';
import type { CatalogView } from '../../../domain/catalog.js';
import { effectiveName, normaliseOverride, overrideSchemaIssues } from '../../../domain/bundle-tools.js';
import { canonicalJson } from '../../../domain/config-document.js';
import type { ToolOverride } from '../../../domain/tool-override.js';
import type { Clock } from '../../../lib/clock.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import { hashBundleKey } from '../../../live/bundles-registry.js';
import type { DbBundleRow, DbBundleToolRow } from '../../../stores/bundles-store.js';
import type { DbToolRow } from '../../../stores/catalog-store.js';
import type { DbServerRow } from '../../../stores/servers-store.js';
import { mintBundleKey } from '../../bundles/bundles-service.js';
import { addPendingTool, toolsOf } from './catalog-tools.js';
import { at, DOC_LOC, type DocBundle, type ImportRun } from './import-run.js';

/** What the bundles step reads besides the transaction: the catalog (tool schemas), the clock, and how bundle keys are made. */
interface BundleDeps {
  catalog: CatalogView;
  clock: Clock;
  secrets: SecretBox;
  keyPrefix: string;
}

/** Bundles: created when new; an existing one takes exactly the document's details, tools, order and overrides. */
export async function applyBundles(
  deps: BundleDeps,
  run: ImportRun,
  servers: Map<string, DbServerRow>,
  userId: string | null,
): Promise<void> {
  const { stores, doc } = run;
  const existing = new Map((await stores.bundles.listAll()).map((b) => [b.name.toLowerCase(), b]));
  const toolsByServer = new Map<string, Map<string, DbToolRow>>();
  const seen = new Set<string>();
  for (const [i, entry] of (doc.bundles ?? []).entries()) {
    const issues: ValidationIssue[] = [];
    if (seen.has(entry.name.toLowerCase()))
      throw new RequestValidationError([at(['bundles', i, 'name'], `The bundle "${entry.name}" is listed twice`, 'duplicate', entry.name)]);
    seen.add(entry.name.toLowerCase());
    const desired: { tool: DbToolRow; server: DbServerRow; display_order: number; override: ToolOverride }[] = [];
    let next = 0;
    for (const [j, t] of (entry.tools ?? []).entries()) {
      const loc = ['bundles', i, 'tools', j];
      const server = servers.get(t.server.toLowerCase());
      if (!server) {
        issues.push(at([...loc, 'server'], `No server is named "${t.server}"`, 'unknown_server', t.server));
        continue;
      }
      let tools = toolsByServer.get(server.id);
      if (!tools) toolsByServer.set(server.id, (tools = await toolsOf(stores, server.id)));
      const tool = tools.get(t.tool) ?? (await addPendingTool(run, server, t.tool, true, tools));
      if (desired.some((d) => d.tool.id === tool.id)) {
        issues.push(at([...loc, 'tool'], `The tool ${t.server}/${t.tool} is listed twice`, 'duplicate', t.tool));
        continue;
      }
      const override = normaliseOverride(t.override as ToolOverride | undefined);
      // A pending tool has no schema yet: its override is checked once the server lists it.
      const known = deps.catalog.tool(tool.id);
      if (known && tool.available) issues.push(...overrideSchemaIssues(known, override, [...DOC_LOC, ...loc, 'override']));
      const order = t.display_order ?? next;
      next = Math.max(next, order + 1);
      desired.push({ tool, server, display_order: order, override });
    }
    if (issues.length) throw new RequestValidationError(issues);
    const names = new Set<string>();
    for (const d of desired) {
      const name = effectiveName(d.tool.name, d.override);
      if (names.has(name)) throw new ConflictError(`Two tools of the bundle "${entry.name}" would be named "${name}"`, 'tool_name_taken');
      names.add(name);
    }
    await applyBundle(deps, run, entry, desired, existing.get(entry.name.toLowerCase()), userId);
  }
}

/** Creates one bundle, or brings an existing one to exactly the entry's details, tools, order and overrides. */
async function applyBundle(
  deps: BundleDeps,
  { stores, out, after }: ImportRun,
  entry: DocBundle,
  desired: { tool: DbToolRow; server: DbServerRow; display_order: number; override: ToolOverride }[],
  row: DbBundleRow | undefined,
  userId: string | null,
): Promise<void> {
  const now = deps.clock.now();
  const toolRow = (bundleId: string, d: (typeof desired)[number]): Omit<DbBundleToolRow, 'created_at' | 'updated_at'> => ({
    bundle_id: bundleId,
    tool_id: d.tool.id,
    server_id: d.server.id,
    server_name: d.server.name,
    tool_name: d.tool.name,
    display_order: d.display_order,
    override: d.override,
  });
  if (!row) {
    const key = mintBundleKey(deps.keyPrefix);
    const id = randomUUID();
    await stores.bundles.insert({
      id,
      name: entry.name,
      description: entry.description ?? null,
      agent_id: entry.agent_id ?? null,
      key_hash: hashBundleKey(key),
      key_sealed: deps.secrets.seal(key),
      created_by: userId,
    });
    await stores.bundles.insertTools(desired.map((d) => toolRow(id, d)));
    after.bundleIds.add(id);
    out.push({ kind: 'bundle', name: entry.name, action: 'create', fields: [] });
    return;
  }
  const patch: { name?: string; description?: string | null; agent_id?: string | null } = {};
  if (entry.name !== row.name) patch.name = entry.name;
  // Declarative: what the entry leaves out is cleared.
  if ((entry.description ?? null) !== row.description) patch.description = entry.description ?? null;
  if ((entry.agent_id ?? null) !== row.agent_id) patch.agent_id = entry.agent_id ?? null;
  let changed = false;
  if (Object.keys(patch).length) {
    await stores.bundles.update(row.id, patch, now);
    out.push({ kind: 'bundle', name: entry.name, action: 'update', fields: Object.keys(patch).sort() });
    changed = true;
  }
  const current = new Map((await stores.bundles.tools(row.id)).map((t) => [t.tool_id, t]));
  const label = (serverName: string, toolName: string): string => `${entry.name}: ${serverName}/${toolName}`;
  const wanted = new Set(desired.map((d) => d.tool.id));
  for (const t of current.values()) {
    if (wanted.has(t.tool_id)) continue;
    await stores.bundles.deleteTool(row.id, t.tool_id);
    out.push({ kind: 'bundle_tool', name: label(t.server_name, t.tool_name), action: 'remove', fields: [] });
    changed = true;
  }
  const added = desired.filter((d) => !current.has(d.tool.id));
  if (added.length) {
    await stores.bundles.insertTools(added.map((d) => toolRow(row.id, d)));
    for (const d of added) out.push({ kind: 'bundle_tool', name: label(d.server.name, d.tool.name), action: 'create', fields: [] });
    changed = true;
  }
  for (const d of desired) {
    const t = current.get(d.tool.id);
    if (!t) continue;
    const fields: string[] = [];
    if (t.display_order !== d.display_order) {
      await stores.bundles.setDisplayOrder(row.id, d.tool.id, d.display_order, now);
      fields.push('display_order');
    }
    if (canonicalJson(t.override ?? {}) !== canonicalJson(d.override)) {
      await stores.bundles.setOverride(row.id, d.tool.id, d.override, now);
      fields.push('override');
    }
    if (fields.length) {
      out.push({ kind: 'bundle_tool', name: label(d.server.name, d.tool.name), action: 'update', fields });
      changed = true;
    }
  }
  if (!changed) return;
  await stores.bundles.touch(row.id, now);
  after.bundleIds.add(row.id);
}
