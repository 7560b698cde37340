import { isFeatureList } from '../../domain/client-features.js';
import { changedFields, type PinnedDefinition } from '../../domain/tool-pin.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { CatalogStore, DbPromptRow, DbResourceRow, DbToolWithServerRow } from '../../stores/catalog-store.js';
import type { ServersStore } from '../../stores/servers-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import type { CatalogSync } from './catalog-sync.js';
import type { InMemoryCatalog } from '../../live/in-memory-catalog.js';
import { pageResult, pageWindow, type PageOf, type PageQuery } from '../pagination.js';

type Schemas = components['schemas'];

function resourceView(row: DbResourceRow): Schemas['CatalogResource'] {
  return {
    id: row.id,
    server_id: row.server_id,
    uri: row.uri,
    name: row.name,
    title: row.title,
    description: row.description,
    mime_type: row.mime_type,
    size: row.size,
    is_template: row.is_template,
    annotations: row.annotations,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function promptView(row: DbPromptRow): Schemas['CatalogPrompt'] {
  return {
    id: row.id,
    server_id: row.server_id,
    name: row.name,
    title: row.title,
    description: row.description,
    arguments: row.arguments.map((a) => ({ name: a.name, description: a.description ?? null, required: a.required ?? false })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The stored catalog as admins see it: tools across servers, one server's tools, resources and
 * prompts, and the admin's tool selection (which tools are served at all).
 */
export class CatalogService {
  constructor(
    private readonly deps: {
      tx: Transactor;
      servers: ServersStore;
      catalogStore: CatalogStore;
      catalog: InMemoryCatalog;
      sync: CatalogSync;
      /** The admin activity log: each change is recorded in its own transaction. */
      activity: ActivityLog;
      /** Tells the other instances (scale-out) that a server's registration or catalog changed here. */
      announce?: (serverId: string) => void;
    },
  ) {}

  /** Tools of every server (or one), filtered by text and enabled state. */
  async listTools(
    query: PageQuery & { search?: string | undefined; server_id?: string | undefined; enabled?: boolean | undefined },
  ): Promise<PageOf<Schemas['CatalogTool']>> {
    const window = pageWindow(query);
    const { rows, total } = await this.deps.catalogStore.pageTools({
      ...window,
      ...(query.search ? { search: query.search } : {}),
      ...(query.server_id ? { serverId: query.server_id } : {}),
      ...(query.enabled !== undefined ? { enabled: query.enabled } : {}),
    });
    return pageResult(window, rows, total, (r) => this.toolView(r));
  }

  /** The tools of one server; 404 when the server does not exist. */
  async listServerTools(serverId: string, query: PageQuery & { search?: string | undefined }): Promise<PageOf<Schemas['CatalogTool']>> {
    await this.existing(serverId);
    return this.listTools({ ...query, server_id: serverId });
  }

  async listResources(serverId: string, query: PageQuery & { search?: string | undefined }): Promise<PageOf<Schemas['CatalogResource']>> {
    await this.existing(serverId);
    const window = pageWindow(query);
    const { rows, total } = await this.deps.catalogStore.pageResources({
      serverId,
      ...window,
      ...(query.search ? { search: query.search } : {}),
    });
    return pageResult(window, rows, total, resourceView);
  }

  async listPrompts(serverId: string, query: PageQuery & { search?: string | undefined }): Promise<PageOf<Schemas['CatalogPrompt']>> {
    await this.existing(serverId);
    const window = pageWindow(query);
    const { rows, total } = await this.deps.catalogStore.pagePrompts({
      serverId,
      ...window,
      ...(query.search ? { search: query.search } : {}),
    });
    return pageResult(window, rows, total, promptView);
  }

  /**
   * Enables or disables tools of one server, atomically: an unknown id or a tool of another
   * server changes nothing (400). Answers how many tools actually changed.
   */
  async setToolSelection(serverId: string, input: Schemas['ToolSelectionUpdate']): Promise<Schemas['ToolSelectionResult']> {
    await this.existing(serverId);
    const changed = await this.deps.tx.transaction(async (stores) => {
      const store = stores.catalog;
      const found = await store.toolsByIdsForUpdate(input.tool_ids);
      const mine = new Set(found.filter((t) => t.server_id === serverId).map((t) => t.id));
      const bad = input.tool_ids.filter((id) => !mine.has(id));
      if (bad.length) {
        const shown = bad.slice(0, 10).join(', ') + (bad.length > 10 ? `, and ${bad.length - 10} more` : '');
        throw new BadRequestError(`Not tools of this server: ${shown}`, 'unknown_tool_ids');
      }
      const updated = await store.setToolsEnabled(input.tool_ids, input.enabled);
      // Selecting a tool approves its definition as it is now: it is pinned (once; a pin stays).
      if (input.enabled) await store.pinCurrent(await store.unpinnedSelected(serverId));
      await this.deps.activity.record(stores, {
        action: input.enabled ? 'server.tools.enable' : 'server.tools.disable',
        target: { type: 'server', id: serverId, name: (await stores.servers.findById(serverId))?.name ?? null },
        details: { tool_ids: input.tool_ids, changed: updated.length },
      });
      return updated;
    });
    if (changed.length) {
      this.deps.catalog.setToolsEnabled(changed, input.enabled);
      this.deps.announce?.(serverId);
    }
    return { updated: changed.length };
  }

  /** Tools whose upstream definition changed since it was approved, each with both definitions. */
  async pendingToolChanges(): Promise<Schemas['ToolChangeListResponse']> {
    const rows = await this.deps.catalogStore.pendingChanges();
    return {
      items: rows.map((r) => {
        const approved = pinnedDefinition(r.pinned_definition);
        const current: PinnedDefinition = { description: r.description, input_schema: r.input_schema, annotations: r.annotations };
        return {
          tool_id: r.id,
          server_id: r.server_id,
          server_name: r.server_name,
          name: r.name,
          approved: approved as Schemas['ToolDefinition'],
          current: current as Schemas['ToolDefinition'],
          changed_fields: changedFields(approved, current),
          changed_at: (r.changed_at ?? r.updated_at).toISOString(),
        };
      }),
    };
  }

  /**
   * Approves a tool's changed definition: it is pinned as it is now and served again (every
   * instance re-reads the server; open sessions get list_changed). 404 when the tool has no
   * pending change.
   */
  async approveToolChange(toolId: string): Promise<void> {
    const serverId = await this.deps.tx.transaction(async (stores) => {
      const pending = (await stores.catalog.pendingChanges()).find((r) => r.id === toolId);
      if (!pending) throw new NotFoundError('No pending change of this tool', 'no_pending_change');
      await stores.catalog.pinCurrent([toolId]);
      await this.deps.activity.record(stores, {
        action: 'tool.change.approve',
        target: { type: 'tool', id: toolId, name: `${pending.server_name}.${pending.name}` },
        details: {
          server_id: pending.server_id,
          changed_fields: changedFields(pinnedDefinition(pending.pinned_definition), {
            description: pending.description,
            input_schema: pending.input_schema,
            annotations: pending.annotations,
          }),
        },
      });
      return pending.server_id;
    });
    await this.deps.sync.reloadCatalog(serverId);
    this.deps.announce?.(serverId);
  }

  private async existing(serverId: string): Promise<void> {
    if (!(await this.deps.servers.findById(serverId))) throw new NotFoundError('No such server', 'server_not_found');
  }

  /**
   * The wire form of a catalog tool; `available` also needs the server to be connected now (a
   * script tool of an attached skill runs in the sandbox: its server need only be enabled).
   */
  private toolView(row: DbToolWithServerRow): Schemas['CatalogTool'] {
    return {
      id: row.id,
      server_id: row.server_id,
      server_name: row.server_name,
      name: row.name,
      title: row.title,
      description: row.description,
      input_schema: row.input_schema,
      output_schema: row.output_schema,
      annotations: row.annotations,
      enabled: row.enabled,
      client_capabilities: isFeatureList(row.client_capabilities) ? row.client_capabilities : [],
      available:
        row.available &&
        (row.skill_attachment_id
          ? (this.deps.catalog.serverState(row.server_id)?.enabled ?? false)
          : this.deps.sync.isConnected(row.server_id)),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

/** A stored pinned definition, as the diff shows it. */
function pinnedDefinition(v: Record<string, unknown>): PinnedDefinition {
  return { description: (v.description as string | null) ?? null, input_schema: v.input_schema ?? {}, annotations: v.annotations ?? null };
}
