import { randomBytes, randomUUID } from 'node:crypto';
import { BadRequestError, ConflictError, NotFoundError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { ToolOverride } from '../../domain/tool-override.js';
import type { BundleSharesStore, BundlesStore, DbBundleRow, DbBundleShareRow, DbBundleToolRow } from '../../stores/bundles-store.js';
import type { TeamsStore } from '../../stores/teams-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { ActivityEntryInput, ActivityLog } from '../operations/activity-log.js';
import { hashBundleKey, type BundlesRegistry, type LiveBundle } from '../../live/bundles-registry.js';
import { toGrant, toLiveBundle, toLiveBundles } from './live-bundle-rows.js';
import { bundleAccess, type BundleAccess, type BundleUser } from '../../domain/bundle-access.js';
import { effectiveName, effectiveTool, normaliseOverride, overrideSchemaIssues, overrideView } from '../../domain/bundle-tools.js';
import type { CatalogView } from '../../domain/catalog.js';
import { roleAtLeast, type Principal } from '../../domain/principal.js';
import { pageResult, pageWindow, type PageQuery } from '../pagination.js';

type Schemas = components['schemas'];
export type BundleSummary = Schemas['MCPBundleSummary'];
export type BundleDetail = Schemas['MCPBundleDetailResponse'];
export type BundleWithKey = Schemas['MCPBundleWithKeyResponse'];
export type BundleToolView = Schemas['BundleTool'];
export type BundleSharesView = Schemas['BundleShares'];
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
  private readonly shares: BundleSharesStore;
  private readonly teams: TeamsStore;

  /** The tail of the queue of reads of other instances' writes (`serially`). */
  private remoteReads: Promise<unknown> = Promise.resolve();

  constructor(deps: {
    tx: Transactor;
    bundles: BundlesStore;
    /** Who bundles are shared with (read with the bundle into its live form). */
    bundleShares: BundleSharesStore;
    /** The caller's teams, read on each REST request (a member sees what is shared with their teams). */
    teams: TeamsStore;
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
    this.shares = deps.bundleShares;
    this.teams = deps.teams;
    this.registry = deps.registry;
    this.catalog = deps.catalog;
    this.secrets = deps.secrets;
    this.clock = deps.clock;
    this.keyPrefix = deps.keyPrefix;
  }

  /** Loads every bundle into the registry (start-up). */
  async loadRegistry(): Promise<void> {
    const [rows, tools, shares] = await Promise.all([this.store.listAll(), this.store.allTools(), this.shares.of()]);
    this.registry.load(toLiveBundles(rows, tools, shares));
  }

  /**
   * Applies a bundle change another instance made (announced on the change bus): re-reads the
   * bundle, or forgets it when it is gone.
   */
  applyRemoteChange(id: string): Promise<void> {
    return this.serially(async () => {
      const row = await this.store.findById(id);
      if (row) this.registry.put(await this.liveOf(row), true);
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
      const bundle = await this.liveOf(row);
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
      if (row) this.registry.put(await this.liveOf(row));
    }
  }

  /** The live form of a stored bundle: its row, tools and shares. */
  private async liveOf(row: DbBundleRow): Promise<LiveBundle> {
    const [tools, shares] = await Promise.all([this.store.tools(row.id), this.shares.of([row.id])]);
    return toLiveBundle(row, tools, shares);
  }

  /**
   * The bundles the caller may see, by name: admins every bundle; members the ones they created
   * and those shared with them or their teams. Each says what the caller may do with it.
   */
  async list(query: PageQuery & { search?: string | undefined }, principal: Principal): Promise<Schemas['MCPBundleListResponse']> {
    const window = pageWindow(query);
    const user = await this.userOf(principal);
    const { rows, total } = await this.store.list(
      window,
      query.search,
      roleAtLeast(user.role, 'admin') ? undefined : { userId: user.userId, teamIds: [...user.teamIds] },
    );
    const shares = roleAtLeast(user.role, 'admin') ? [] : await this.shares.of(rows.map((r) => r.id));
    return pageResult(window, rows, total, (r) => ({
      ...this.summary(r, Number(r.tool_count)),
      access: this.accessOf(user, r, shares) ?? 'view',
    }));
  }

  /** One bundle the caller may see (404 when they may not: its existence is not disclosed). */
  async get(id: string, principal: Principal): Promise<BundleDetail> {
    return this.visible(await this.store.findById(id), principal, `Bundle ${id} not found`);
  }

  async getByAgent(agentId: string, principal: Principal): Promise<BundleDetail> {
    return this.visible(await this.store.findByAgent(agentId), principal, `No bundle is linked to agent ${agentId}`);
  }

  private async visible(row: DbBundleRow | undefined, principal: Principal, missing: string): Promise<BundleDetail> {
    if (!row) throw new NotFoundError(missing);
    const user = await this.userOf(principal);
    const access = this.accessOf(user, row, roleAtLeast(user.role, 'admin') ? [] : await this.shares.of([row.id]));
    if (!access) throw new NotFoundError(missing);
    return { ...this.detail(row, await this.store.tools(row.id)), access };
  }

  /** The caller with their teams, read from the database (REST answers what was committed). */
  private async userOf(principal: Principal): Promise<BundleUser> {
    if (roleAtLeast(principal.role, 'admin')) return { userId: principal.userId, role: principal.role, teamIds: new Set() };
    const memberships = await this.teams.membershipsOf(principal.userId);
    return { userId: principal.userId, role: principal.role, teamIds: new Set(memberships.map((m) => m.team_id)) };
  }

  private accessOf(user: BundleUser, row: DbBundleRow, shares: readonly DbBundleShareRow[]): BundleAccess | null {
    return bundleAccess(user, { createdBy: row.created_by, shares: shares.filter((s) => s.bundle_id === row.id).map(toGrant) });
  }

  /** Who a bundle is shared with. */
  async getShares(id: string): Promise<BundleSharesView> {
    if (!(await this.store.findById(id))) throw new NotFoundError(`Bundle ${id} not found`);
    return this.sharesView(id, await this.shares.of([id]));
  }

  /**
   * Replaces who a bundle is shared with (every named team and user must exist; each at most
   * once), recorded in the activity log; the live bundle is replaced, so the gateways of the users
   * it concerns change at once on every instance.
   */
  async setShares(id: string, input: Schemas['BundleSharesUpdate']): Promise<BundleSharesView> {
    const seen = new Set<string>();
    const issues: ValidationIssue[] = [];
    input.shares.forEach((s, i) => {
      const k = `${s.principal_type}:${s.principal_id}`;
      if (seen.has(k))
        issues.push({
          loc: ['body', 'shares', i, 'principal_id'],
          msg: `This ${s.principal_type} is named twice`,
          type: 'value_error.duplicate',
          input: s.principal_id,
        });
      seen.add(k);
    });
    if (issues.length) throw new RequestValidationError(issues);
    const { row, result } = await this.write(
      id,
      async (_store, _tools, stores) => {
        const teamIds = input.shares.filter((s) => s.principal_type === 'team').map((s) => s.principal_id);
        const userIds = input.shares.filter((s) => s.principal_type === 'user').map((s) => s.principal_id);
        const teams = new Set((await stores.teams.existing(teamIds)).map((t) => t.id));
        const users = new Set(await stores.users.existingIds(userIds));
        input.shares.forEach((s, i) => {
          const known = s.principal_type === 'team' ? teams.has(s.principal_id) : users.has(s.principal_id);
          if (!known)
            throw new NotFoundError(`No such ${s.principal_type} at shares[${i}]: ${s.principal_id}`, `${s.principal_type}_not_found`);
        });
        await stores.bundleShares.replace(
          id,
          input.shares.map((s) => ({
            team_id: s.principal_type === 'team' ? s.principal_id : null,
            user_id: s.principal_type === 'user' ? s.principal_id : null,
            access: s.access,
          })),
          this.clock.now(),
        );
        await stores.bundles.touch(id, this.clock.now());
        return stores.bundleShares.of([id]);
      },
      {
        activity: (row) =>
          entry('bundle.share', row, {
            teams_use: input.shares.filter((s) => s.principal_type === 'team' && s.access === 'use').length,
            teams_view: input.shares.filter((s) => s.principal_type === 'team' && s.access === 'view').length,
            users_use: input.shares.filter((s) => s.principal_type === 'user' && s.access === 'use').length,
            users_view: input.shares.filter((s) => s.principal_type === 'user' && s.access === 'view').length,
          }),
      },
    );
    return this.sharesView(row.id, result);
  }

  private sharesView(bundleId: string, rows: readonly DbBundleShareRow[]): BundleSharesView {
    return {
      bundle_id: bundleId,
      items: rows.map((r) => ({
        principal_type: r.team_id !== null ? ('team' as const) : ('user' as const),
        principal_id: (r.team_id ?? r.user_id)!,
        name: r.grantee_name,
        access: r.access,
        created_at: r.created_at.toISOString(),
      })),
    };
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
    return { ...this.detail(row, tools), access: 'manage' };
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
    change: (store: BundlesStore, tools: DbBundleToolRow[], stores: Stores) => Promise<T>,
    { creating = false, activity }: { creating?: boolean; activity: (row: DbBundleRow) => ActivityEntryInput },
  ): Promise<{ row: DbBundleRow; tools: DbBundleToolRow[]; result: T }> {
    const out = await this.tx.transaction(async (stores) => {
      const store = stores.bundles;
      // A create writes an id that does not exist yet; every other change needs the bundle.
      if (!creating && !(await store.findById(id, { forUpdate: true }))) throw new NotFoundError(`Bundle ${id} not found`);
      const current = creating ? [] : await store.tools(id);
      const result = await change(store, current, stores);
      const row = await store.findById(id);
      if (!row) throw new NotFoundError(`Bundle ${id} not found`);
      await this.activity.record(stores, activity(row));
      return { row, tools: await store.tools(id), shares: await stores.bundleShares.of([id]), result };
    });
    this.registry.put(toLiveBundle(out.row, out.tools, out.shares));
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

  private summary(row: DbBundleRow, toolCount: number): Omit<BundleSummary, 'access'> {
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

  private detail(row: DbBundleRow, tools: DbBundleToolRow[]): Omit<BundleDetail, 'access'> {
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
      available: !!tool && tool.available && !tool.held && (!!server?.connected || !!tool.script) && !!server?.enabled,
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
