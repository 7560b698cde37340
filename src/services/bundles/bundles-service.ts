import { randomBytes, randomUUID } from 'node:crypto';
import { BadRequestError, ConflictError, NotFoundError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { ToolOverride } from '../../domain/tool-override.js';
import type { BundlesStore, DbBundleRow, DbBundleToolRow } from '../../stores/bundles-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityEntryInput, ActivityLog } from '../operations/activity-log.js';
import { hashBundleKey, type BundlesRegistry, type LiveBundle } from '../../live/bundles-registry.js';
import { toLiveBundle, toLiveBundles } from './live-bundle-rows.js';
import { effectiveName, effectiveTool, normaliseOverride, overrideSchemaIssues, overrideView } from '../../domain/bundle-tools.js';
import type { CatalogView } from '../../domain/catalog.js';
import type { Principal } from '../../domain/principal.js';
import { pageResult, pageWindow, type PageQuery } from '../pagination.js';

type Schemas = components['schemas'];
export type BundleSummary = Schemas['MCPBundleSummary'];
export type BundleDetail = Schemas['MCPBundleDetailResponse'];
export type BundleWithKey = Schemas['MCPBundleWithKeyResponse'];
export type BundleToolView = Schemas['BundleTool'];
type ToolInput = Schemas['BundleToolInput'];

/** Largest display order the contract allows. */
const MAX_ORDER = 1_000_000;

/** Mints a bundle key: `<prefix>_bdl_` + 32 random bytes (256 bits) base64url. */
export function mintBundleKey(servicePrefix: string): string {
  return `${servicePrefix}_bdl_${randomBytes(32).toString('base64url')}`;
}

/** The MCP endpoint URL of a bundle key under a base URL. */
export function bundleEndpoint(baseUrl: string, key: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/mcp/bundle/${encodeURIComponent(key)}`;
}

/** A bundle's activity entry: ids, names and counts, never its key. */
function entry(action: string, row: DbBundleRow, details: ActivityEntryInput['details'] = {}): ActivityEntryInput {
  return { action, target: { type: 'bundle', id: row.id, name: row.name }, details };
}

/**
 * Bundles: the rules of the REST operations. Writes go to the database in one transaction, then
 * the bundle's live form replaces the one in the registry the MCP endpoint reads.
 */
export class BundlesService {
  private readonly tx: Transactor;
  private readonly store: BundlesStore;
  private readonly registry: BundlesRegistry;
  private readonly catalog: CatalogView;
  private readonly secrets: SecretBox;
  private readonly clock: Clock;
  private readonly keyPrefix: string;
  private readonly activity: ActivityLog;

  /** The tail of the queue of reads of other instances' writes (`serially`). */
  private remoteReads: Promise<unknown> = Promise.resolve();

  constructor(deps: {
    tx: Transactor;
    bundles: BundlesStore;
    registry: BundlesRegistry;
    catalog: CatalogView;
    secrets: SecretBox;
    clock: Clock;
    keyPrefix: string;
    /** The admin activity log: each change is recorded in its own transaction. */
    activity: ActivityLog;
  }) {
    this.activity = deps.activity;
    this.tx = deps.tx;
    this.store = deps.bundles;
    this.registry = deps.registry;
    this.catalog = deps.catalog;
    this.secrets = deps.secrets;
    this.clock = deps.clock;
    this.keyPrefix = deps.keyPrefix;
  }

  /** Loads every bundle into the registry (start-up). */
  async loadRegistry(): Promise<void> {
    const [rows, tools] = await Promise.all([this.store.listAll(), this.store.allTools()]);
    this.registry.load(toLiveBundles(rows, tools));
  }

  /**
   * Applies a bundle change another instance made (announced on the change bus): re-reads the
   * bundle, or forgets it when it is gone.
   */
  applyRemoteChange(id: string): Promise<void> {
    return this.serially(async () => {
      const row = await this.store.findById(id);
      if (row) this.registry.put(toLiveBundle(row, await this.store.tools(id)), true);
      else this.registry.remove(id, true);
    });
  }

  /**
   * Reads the bundle a key hash opens into the registry, for a key this instance does not know yet:
   * with several instances, a bundle created (or a key rotated) on another one is in the database
   * before its change message arrives here. Undefined when no bundle has that key.
   */
  catchUpByKeyHash(keyHash: string): Promise<LiveBundle | undefined> {
    return this.serially(async () => {
      const row = await this.store.findByKeyHash(keyHash);
      if (!row) return undefined;
      const current = this.registry.get(row.id);
      // Its change message got here first: nothing to replace (and no list_changed to send).
      if (current?.keyHash === keyHash) return current;
      const bundle = toLiveBundle(row, await this.store.tools(row.id));
      this.registry.put(bundle, true);
      return bundle;
    });
  }

  /**
   * Runs the reads of other instances' writes one at a time, in the order they were asked for, so
   * an older read never replaces a newer one in the registry.
   */
  private serially<T>(read: () => Promise<T>): Promise<T> {
    const next = this.remoteReads.then(read);
    this.remoteReads = next.catch(() => undefined);
    return next;
  }

  /** Re-reads bundles changed outside this service (a deleted server's tools removed) into the registry. */
  async republish(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const row = await this.store.findById(id);
      if (row) this.registry.put(toLiveBundle(row, await this.store.tools(id)));
    }
  }

  async list(query: PageQuery & { search?: string | undefined }): Promise<Schemas['MCPBundleListResponse']> {
    const window = pageWindow(query);
    const { rows, total } = await this.store.list(window, query.search);
    return pageResult(window, rows, total, (r) => this.summary(r, Number(r.tool_count)));
  }

  async get(id: string): Promise<BundleDetail> {
    const row = await this.store.findById(id);
    if (!row) throw new NotFoundError(`Bundle ${id} not found`);
    return this.detail(row, await this.store.tools(id));
  }

  async getByAgent(agentId: string): Promise<BundleDetail> {
    const row = await this.store.findByAgent(agentId);
    if (!row) throw new NotFoundError(`No bundle is linked to agent ${agentId}`);
    return this.detail(row, await this.store.tools(row.id));
  }

  async create(input: Schemas['MCPBundleCreate'], principal: Principal, baseUrl: string): Promise<BundleWithKey> {
    const key = mintBundleKey(this.keyPrefix);
    const id = randomUUID();
    const rows = this.newToolRows(id, input.tools ?? [], [], ['body', 'tools']);
    const { row, tools } = await this.write(
      id,
      async (store) => {
        const created = await store.insert({
          id,
          name: input.name,
          description: input.description ?? null,
          agent_id: input.agent_id ?? null,
          key_hash: hashBundleKey(key),
          key_sealed: this.secrets.seal(key),
          created_by: principal.userId,
        });
        await store.insertTools(rows);
        return created;
      },
      { creating: true, activity: (row) => entry('bundle.create', row, { tool_count: rows.length }) },
    );
    return this.withKey(row, tools.length, key, baseUrl);
  }

  async update(id: string, input: Schemas['MCPBundleUpdate'], baseUrl: string): Promise<BundleWithKey> {
    const { row, tools } = await this.write(
      id,
      async (store) => {
        const patch: Partial<DbBundleRow> = { name: input.name };
        if (input.description !== undefined) patch.description = input.description;
        if (input.agent_id !== undefined) patch.agent_id = input.agent_id;
        return (await store.update(id, patch, this.clock.now()))!;
      },
      { activity: (row) => entry('bundle.update', row, { fields: Object.keys(input).sort() }) },
    );
    return this.withKey(row, tools.length, this.secrets.open(row.key_sealed), baseUrl);
  }

  async regenerateKey(id: string, baseUrl: string): Promise<BundleWithKey> {
    const key = mintBundleKey(this.keyPrefix);
    const { row, tools } = await this.write(
      id,
      async (store) => {
        return (await store.update(id, { key_hash: hashBundleKey(key), key_sealed: this.secrets.seal(key) }, this.clock.now()))!;
      },
      { activity: (row) => entry('bundle.regenerate_key', row) },
    );
    return this.withKey(row, tools.length, key, baseUrl);
  }

  async delete(id: string): Promise<void> {
    await this.tx.transaction(async (stores) => {
      const row = await stores.bundles.findById(id, { forUpdate: true });
      if (!row || !(await stores.bundles.delete(id))) throw new NotFoundError(`Bundle ${id} not found`);
      await this.activity.record(stores, entry('bundle.delete', row));
    });
    this.registry.remove(id);
  }

  async addTools(id: string, inputs: ToolInput[]): Promise<BundleDetail> {
    const { row, tools } = await this.write(
      id,
      async (store, current) => {
        const rows = this.newToolRows(id, inputs, current, ['body', 'tools']);
        await store.insertTools(rows);
        await store.touch(id, this.clock.now());
      },
      { activity: (row) => entry('bundle.tools.add', row, { tool_ids: inputs.map((t) => t.tool_id) }) },
    );
    return this.detail(row, tools);
  }

  async removeTool(id: string, toolId: string): Promise<void> {
    await this.write(
      id,
      async (store) => {
        if (!(await store.deleteTool(id, toolId))) throw new NotFoundError(`Tool ${toolId} is not in bundle ${id}`);
        await store.touch(id, this.clock.now());
      },
      { activity: (row) => entry('bundle.tools.remove', row, { tool_id: toolId }) },
    );
  }

  async setOverride(id: string, toolId: string, input: Schemas['BundleToolOverride']): Promise<BundleToolView> {
    const override = normaliseOverride(input as ToolOverride);
    const { tools } = await this.write(
      id,
      async (store, current) => {
        const target = current.find((t) => t.tool_id === toolId);
        if (!target) throw new NotFoundError(`Tool ${toolId} is not in bundle ${id}`);
        const catalogTool = this.catalog.tool(toolId);
        if (catalogTool) {
          const issues = overrideSchemaIssues(catalogTool, override, ['body']);
          if (issues.length) throw new RequestValidationError(issues);
        }
        const others = current.filter((t) => t.tool_id !== toolId);
        this.checkNames([...others, { ...target, override }]);
        await store.setOverride(id, toolId, override, this.clock.now());
        await store.touch(id, this.clock.now());
      },
      { activity: (row) => entry('bundle.tools.override', row, { tool_id: toolId, fields: Object.keys(input).sort() }) },
    );
    return this.toolView(tools.find((t) => t.tool_id === toolId)!);
  }

  async reorder(id: string, pairs: [string, number][]): Promise<void> {
    await this.write(
      id,
      async (store, current) => {
        const inBundle = new Set(current.map((t) => t.tool_id));
        const seen = new Set<string>();
        for (const [toolId] of pairs) {
          if (!inBundle.has(toolId)) throw new BadRequestError(`Tool ${toolId} is not in bundle ${id}`, 'tool_not_in_bundle');
          if (seen.has(toolId)) throw new BadRequestError(`Tool ${toolId} is listed twice`, 'duplicate_tool');
          seen.add(toolId);
        }
        const now = this.clock.now();
        for (const [toolId, order] of pairs) await store.setDisplayOrder(id, toolId, order, now);
        await store.touch(id, now);
      },
      { activity: (row) => entry('bundle.tools.reorder', row, { tool_count: pairs.length }) },
    );
  }

  /**
   * Runs a change to one bundle in a transaction (the bundle row locked, so concurrent changes of
   * one bundle queue), records it in the activity log in that transaction, then publishes the
   * bundle's new live form to the registry.
   */
  private async write<T>(
    id: string,
    change: (store: BundlesStore, tools: DbBundleToolRow[]) => Promise<T>,
    { creating = false, activity }: { creating?: boolean; activity: (row: DbBundleRow) => ActivityEntryInput },
  ): Promise<{ row: DbBundleRow; tools: DbBundleToolRow[]; result: T }> {
    const out = await this.tx.transaction(async (stores) => {
      const store = stores.bundles;
      // A create writes an id that does not exist yet; every other change needs the bundle.
      if (!creating && !(await store.findById(id, { forUpdate: true }))) throw new NotFoundError(`Bundle ${id} not found`);
      const current = creating ? [] : await store.tools(id);
      const result = await change(store, current);
      const row = await store.findById(id);
      if (!row) throw new NotFoundError(`Bundle ${id} not found`);
      await this.activity.record(stores, activity(row));
      return { row, tools: await store.tools(id), result };
    });
    this.registry.put(toLiveBundle(out.row, out.tools));
    return out;
  }

  /** Validates new tools (exist in the catalog, no duplicates, overrides fit) and builds their rows. */
  private newToolRows(
    bundleId: string,
    inputs: ToolInput[],
    current: DbBundleToolRow[],
    loc: (string | number)[],
  ): Omit<DbBundleToolRow, 'created_at' | 'updated_at'>[] {
    const seen = new Set<string>();
    const issues: ValidationIssue[] = [];
    let next = current.reduce((max, t) => Math.max(max, t.display_order + 1), 0);
    const rows = inputs.map((input, i) => {
      const tool = this.catalog.tool(input.tool_id);
      if (!tool) throw new BadRequestError(`Tool ${input.tool_id} does not exist in the catalog`, 'unknown_tool');
      if (seen.has(input.tool_id)) throw new BadRequestError(`Tool ${input.tool_id} is listed twice`, 'duplicate_tool');
      if (current.some((t) => t.tool_id === input.tool_id))
        throw new ConflictError(`Tool ${input.tool_id} is already in the bundle`, 'tool_in_bundle');
      seen.add(input.tool_id);
      const override = normaliseOverride(input.override as ToolOverride | undefined);
      issues.push(...overrideSchemaIssues(tool, override, [...loc, i, 'override']));
      const displayOrder = input.display_order ?? Math.min(next, MAX_ORDER);
      next = Math.max(next, displayOrder + 1);
      return {
        bundle_id: bundleId,
        tool_id: tool.id,
        server_id: tool.serverId,
        server_name: tool.serverName,
        tool_name: tool.name,
        display_order: displayOrder,
        override,
      };
    });
    if (issues.length) throw new RequestValidationError(issues);
    this.checkNames([...current, ...rows]);
    return rows;
  }

  /** Two tools of a bundle may not be offered under one name. */
  private checkNames(tools: Pick<DbBundleToolRow, 'tool_id' | 'tool_name' | 'override'>[]): void {
    const names = new Map<string, string>();
    for (const t of tools) {
      const name = effectiveName(this.catalog.tool(t.tool_id)?.name ?? t.tool_name, t.override);
      if (names.has(name)) throw new ConflictError(`Two tools of the bundle would be named "${name}"`, 'tool_name_taken');
      names.set(name, t.tool_id);
    }
  }

  private summary(row: DbBundleRow, toolCount: number): BundleSummary {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      agent_id: row.agent_id,
      tool_count: toolCount,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      created_by: row.created_by,
    };
  }

  private detail(row: DbBundleRow, tools: DbBundleToolRow[]): BundleDetail {
    return { ...this.summary(row, tools.length), tools: tools.map((t) => this.toolView(t)) };
  }

  private withKey(row: DbBundleRow, toolCount: number, key: string, baseUrl: string): BundleWithKey {
    return { ...this.summary(row, toolCount), bundle_key: key, mcp_endpoint: bundleEndpoint(baseUrl, key) };
  }

  /** A bundle tool as REST shows it; a tool gone from the catalog is shown from its snapshot, unavailable. */
  toolView(t: DbBundleToolRow): BundleToolView {
    const tool = this.catalog.tool(t.tool_id);
    const server = this.catalog.serverState(t.server_id);
    const override = t.override ?? {};
    const effective = tool
      ? effectiveTool(tool, override)
      : {
          name: effectiveName(t.tool_name, override),
          title: override.title ?? null,
          description: override.description ?? null,
          annotations: override.annotations ?? null,
        };
    return {
      tool_id: t.tool_id,
      server_id: tool?.serverId ?? t.server_id,
      server_name: tool?.serverName ?? t.server_name,
      name: tool?.name ?? t.tool_name,
      display_order: t.display_order,
      available: !!tool && tool.available && (!!server?.connected || !!tool.script) && !!server?.enabled,
      enabled: override.enabled !== false && (tool?.enabled ?? true),
      override: overrideView(override),
      effective: {
        name: effective.name,
        title: effective.title,
        description: effective.description,
        annotations: effective.annotations as Record<string, unknown> | null,
      },
    };
  }
}
