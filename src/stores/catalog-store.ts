import type { Knex } from 'knex';
import { matching, pageOf } from './paging.js';
import { jsonWithoutNul, textWithoutNul } from './postgres-text.js';
import { definitionHash } from '../domain/tool-pin.js';

export interface DbToolRow {
  id: string;
  server_id: string;
  name: string;
  title: string | null;
  description: string | null;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  /** `execution` of the upstream tool definition (`taskSupport`), passed through. */
  execution: Record<string, unknown> | null;
  /** Client features the upstream lists the tool to only (null: any client). */
  client_capabilities: string[] | null;
  enabled: boolean;
  available: boolean;
  /** Set on script tools: the skill attachment that registered the tool. */
  skill_attachment_id: string | null;
  /** Hash of the definition the upstream offers now (src/domain/tool-pin.ts). */
  definition_hash: string | null;
  /** Hash of the approved definition; null until the tool is first selected. */
  pinned_hash: string | null;
  /** When the upstream's definition first differed from the approved one (null when it does not). */
  changed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A tool row with its server's name and connection facts, as listings show it. */
export interface DbToolWithServerRow extends DbToolRow {
  server_name: string;
}

export interface DbResourceRow {
  id: string;
  server_id: string;
  uri: string;
  is_template: boolean;
  name: string;
  title: string | null;
  description: string | null;
  mime_type: string | null;
  size: number | null;
  annotations: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

export interface DbPromptRow {
  id: string;
  server_id: string;
  name: string;
  title: string | null;
  description: string | null;
  arguments: { name: string; description?: string; required?: boolean }[];
  created_at: Date;
  updated_at: Date;
}

const TOOL_COLUMNS = [
  'id',
  'server_id',
  'name',
  'title',
  'description',
  'input_schema',
  'output_schema',
  'annotations',
  'meta',
  'execution',
  'client_capabilities',
  'enabled',
  'available',
  'skill_attachment_id',
  'definition_hash',
  'pinned_hash',
  'changed_at',
  'created_at',
  'updated_at',
] as const;
const RESOURCE_COLUMNS = [
  'id',
  'server_id',
  'uri',
  'is_template',
  'name',
  'title',
  'description',
  'mime_type',
  'size',
  'annotations',
  'created_at',
  'updated_at',
] as const;
const PROMPT_COLUMNS = ['id', 'server_id', 'name', 'title', 'description', 'arguments', 'created_at', 'updated_at'] as const;

const json = (v: unknown) => (v === null || v === undefined ? null : jsonWithoutNul(v));

const text = textWithoutNul;

/** Schemas are JSON text in the upstream's key order (jsonb would reorder them). */
const schemaText = (v: Record<string, unknown> | null) => (v === null ? null : JSON.stringify(v));

function toolFromDb(raw: Record<string, unknown>): DbToolRow {
  const row = raw as unknown as DbToolRow & { input_schema: unknown; output_schema: unknown; client_capabilities: unknown };
  return {
    ...row,
    input_schema: parseSchema(row.input_schema) ?? {},
    output_schema: parseSchema(row.output_schema),
    client_capabilities: (parseSchema(row.client_capabilities) as string[] | null) ?? null,
  };
}

function parseSchema(v: unknown): Record<string, unknown> | null {
  if (v === null || v === undefined) return null;
  return (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;
}

function resourceFromDb(raw: Record<string, unknown>): DbResourceRow {
  const row = raw as unknown as DbResourceRow;
  return { ...row, size: row.size === null ? null : Number(row.size) };
}

/** A tool as the upstream offers it, ready to be stored. */
export interface ToolUpsert {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  execution: Record<string, unknown> | null;
  /** Client features the upstream lists the tool to only (null or absent: any client). */
  client_capabilities?: readonly string[] | null;
}

export type ResourceUpsert = Omit<DbResourceRow, 'id' | 'server_id' | 'created_at' | 'updated_at'>;
export type PromptUpsert = Omit<DbPromptRow, 'id' | 'server_id' | 'created_at' | 'updated_at'>;

/** Persistence of the synced catalog: tools (stable ids), resources and prompts of each server. */
export class CatalogStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async toolsOfServers(serverIds?: readonly string[]): Promise<DbToolRow[]> {
    const q = this.db('mcp_tools')
      .select(TOOL_COLUMNS)
      .orderBy([{ column: 'server_id' }, { column: 'name' }]);
    if (serverIds) q.whereIn('server_id', [...serverIds]);
    return (await q).map(toolFromDb);
  }

  async resourcesOfServers(serverIds?: readonly string[]): Promise<DbResourceRow[]> {
    const q = this.db('mcp_resources')
      .select(RESOURCE_COLUMNS)
      .orderBy([{ column: 'server_id' }, { column: 'position' }, { column: 'uri' }]);
    if (serverIds) q.whereIn('server_id', [...serverIds]);
    return (await q).map(resourceFromDb);
  }

  async promptsOfServers(serverIds?: readonly string[]): Promise<DbPromptRow[]> {
    const q = this.db('mcp_prompts')
      .select(PROMPT_COLUMNS)
      .orderBy([{ column: 'server_id' }, { column: 'position' }, { column: 'name' }]);
    if (serverIds) q.whereIn('server_id', [...serverIds]);
    return q;
  }

  /**
   * Brings a server's tools in line with what the upstream offers: existing names keep their id
   * and selection (and become available), new names get a fresh id, missing names are marked
   * unavailable. Returns the number of rows changed.
   */
  /**
   * Stores what the upstream offers now. Each tool's definition is hashed; a selected tool without
   * a pin is pinned to it, and a pinned tool whose definition changed keeps its pin (and is
   * withheld, `changed_at` set) unless `acceptChanges`, when the new definition is pinned at once.
   */
  async syncTools(serverId: string, tools: readonly ToolUpsert[], newId: () => string, acceptChanges = false): Promise<void> {
    const rows: { id: string; name: string; skill_attachment_id: string | null; enabled: boolean; pinned_hash: string | null }[] =
      await this.db('mcp_tools').select('id', 'name', 'skill_attachment_id', 'enabled', 'pinned_hash').where({ server_id: serverId });
    const known = new Map(rows.map((r) => [r.id, r]));
    // Script tools of attached skills are not the upstream's: their names hide upstream tools.
    const existing = rows.filter((t) => t.skill_attachment_id === null);
    const scriptNames = new Set(rows.filter((t) => t.skill_attachment_id !== null).map((t) => t.name));
    const byName = new Map(existing.map((t) => [t.name, t.id]));
    const offered = new Set<string>();
    for (const tool of tools) {
      if (scriptNames.has(tool.name)) continue;
      offered.add(tool.name);
      const values = {
        title: text(tool.title),
        description: text(tool.description),
        input_schema: schemaText(tool.input_schema),
        output_schema: schemaText(tool.output_schema),
        annotations: json(tool.annotations),
        meta: json(tool.meta),
        execution: json(tool.execution),
        client_capabilities: json(tool.client_capabilities?.length ? tool.client_capabilities : null),
        available: true,
      };
      const definition = { description: values.description, input_schema: tool.input_schema, annotations: tool.annotations };
      const h = definitionHash(definition);
      const pin = { pinned_hash: h, pinned_definition: jsonWithoutNul(definition), changed_at: null };
      const id = byName.get(tool.name);
      const row = id ? known.get(id) : undefined;
      const pinning =
        !row || (row.pinned_hash === null && row.enabled) || (row.pinned_hash !== null && row.pinned_hash !== h && acceptChanges)
          ? pin
          : row.pinned_hash === h
            ? { changed_at: null }
            : row.pinned_hash !== null
              ? { changed_at: this.db.raw('coalesce(changed_at, now())') }
              : {};
      if (id)
        await this.db('mcp_tools')
          .where({ id })
          .update({ ...values, definition_hash: h, ...pinning, updated_at: this.db.fn.now() });
      // Another instance syncing the same upstream at the same moment may have inserted the name
      // first (scale-out): then its row is brought up to date instead (keeping its id and selection).
      else
        await this.db('mcp_tools')
          .insert({ id: newId(), server_id: serverId, name: tool.name, enabled: true, ...values, definition_hash: h, ...pin })
          .onConflict(['server_id', 'name'])
          .merge({ ...values, definition_hash: h, updated_at: this.db.fn.now() })
          .where('mcp_tools.skill_attachment_id', null);
    }
    const gone = existing.filter((t) => !offered.has(t.name)).map((t) => t.id);
    if (gone.length)
      await this.db('mcp_tools').whereIn('id', gone).andWhere('available', true).update({ available: false, updated_at: this.db.fn.now() });
  }

  /**
   * Sets what each of a server's upstream tools (by name) needs a client to declare before the
   * upstream lists it: the features in `needs`, else nothing.
   */
  async setClientCapabilities(serverId: string, names: readonly string[], needs: ReadonlyMap<string, readonly string[]>): Promise<void> {
    for (const name of names) {
      const features = needs.get(name);
      await this.db('mcp_tools')
        .where({ server_id: serverId, name, skill_attachment_id: null })
        .update({ client_capabilities: json(features?.length ? features : null) });
    }
  }

  /** Pins the current definition of these tools (selected without a pin, or a change approved); returns the ids pinned. */
  async pinCurrent(toolIds: readonly string[]): Promise<string[]> {
    if (!toolIds.length) return [];
    const rows: { id: string }[] = await this.db('mcp_tools')
      .whereIn('id', [...toolIds])
      .whereNotNull('definition_hash')
      .update({
        pinned_hash: this.db.ref('definition_hash'),
        pinned_definition: this.db.raw(
          "jsonb_build_object('description', description, 'input_schema', input_schema::jsonb, 'annotations', annotations)",
        ),
        changed_at: null,
        updated_at: this.db.fn.now(),
      })
      .returning('id');
    return rows.map((r) => r.id);
  }

  /** Selected tools without a pin, of one server (to pin when they are selected). */
  async unpinnedSelected(serverId: string): Promise<string[]> {
    const rows: { id: string }[] = await this.db('mcp_tools')
      .select('id')
      .where({ server_id: serverId, enabled: true })
      .whereNull('pinned_hash')
      .whereNull('skill_attachment_id');
    return rows.map((r) => r.id);
  }

  /** Tools whose upstream definition differs from the approved one, with both definitions, oldest change first. */
  async pendingChanges(): Promise<(DbToolRow & { server_name: string; pinned_definition: Record<string, unknown> })[]> {
    const rows = await this.db('mcp_tools as t')
      .join('mcp_servers as s', 's.id', 't.server_id')
      .select([...TOOL_COLUMNS.map((c) => `t.${c}`), 't.pinned_definition', 's.name as server_name'])
      .whereNotNull('t.pinned_hash')
      .whereNotNull('t.definition_hash')
      .whereRaw('t.pinned_hash <> t.definition_hash')
      .orderBy([{ column: 't.changed_at' }, { column: 't.id' }]);
    return rows.map((r: Record<string, unknown>) => ({
      ...toolFromDb(r),
      server_name: r.server_name as string,
      pinned_definition: (typeof r.pinned_definition === 'string' ? JSON.parse(r.pinned_definition) : r.pinned_definition) as Record<
        string,
        unknown
      >,
    }));
  }

  /** Replaces a server's resources and templates, keeping ids of unchanged URIs. */
  async syncResources(serverId: string, resources: readonly ResourceUpsert[], newId: () => string): Promise<void> {
    const existing: { id: string; uri: string; is_template: boolean }[] = await this.db('mcp_resources')
      .select('id', 'uri', 'is_template')
      .where({ server_id: serverId });
    const key = (uri: string, t: boolean) => `${t ? 't' : 'r'}:${uri}`;
    const byKey = new Map(existing.map((r) => [key(r.uri, r.is_template), r.id]));
    const seen = new Set<string>();
    // Resources and templates are numbered apart, each in the upstream's order.
    let resourceAt = 0;
    let templateAt = 0;
    for (const r of resources) {
      const k = key(r.uri, r.is_template);
      if (seen.has(k)) continue;
      seen.add(k);
      const values = {
        ...r,
        position: r.is_template ? templateAt++ : resourceAt++,
        name: text(r.name) ?? '',
        title: text(r.title),
        description: text(r.description),
        annotations: json(r.annotations),
      };
      const id = byKey.get(k);
      if (id)
        await this.db('mcp_resources')
          .where({ id })
          .update({ ...values, updated_at: this.db.fn.now() });
      else
        await this.db('mcp_resources')
          .insert({ id: newId(), server_id: serverId, ...values })
          .onConflict(['server_id', 'is_template', 'uri'])
          .merge({ ...values, updated_at: this.db.fn.now() });
    }
    const gone = existing.filter((r) => !seen.has(key(r.uri, r.is_template))).map((r) => r.id);
    if (gone.length) await this.db('mcp_resources').whereIn('id', gone).delete();
  }

  /** Replaces a server's prompts, keeping ids of unchanged names. */
  async syncPrompts(serverId: string, prompts: readonly PromptUpsert[], newId: () => string): Promise<void> {
    const existing: { id: string; name: string }[] = await this.db('mcp_prompts').select('id', 'name').where({ server_id: serverId });
    const byName = new Map(existing.map((p) => [p.name, p.id]));
    const seen = new Set<string>();
    let position = 0;
    for (const p of prompts) {
      if (seen.has(p.name)) continue;
      seen.add(p.name);
      const values = { ...p, position: position++, title: text(p.title), description: text(p.description), arguments: json(p.arguments) };
      const id = byName.get(p.name);
      if (id)
        await this.db('mcp_prompts')
          .where({ id })
          .update({ ...values, updated_at: this.db.fn.now() });
      else
        await this.db('mcp_prompts')
          .insert({ id: newId(), server_id: serverId, ...values })
          .onConflict(['server_id', 'name'])
          .merge({ ...values, updated_at: this.db.fn.now() });
    }
    const gone = existing.filter((p) => !seen.has(p.name)).map((p) => p.id);
    if (gone.length) await this.db('mcp_prompts').whereIn('id', gone).delete();
  }

  /**
   * Records a tool a server has not offered yet (a configuration import names it): unavailable,
   * with an empty input schema, until the server's next sync fills it in by name (keeping the id
   * and the selection).
   */
  async insertPendingTool(row: { id: string; server_id: string; name: string; enabled: boolean }): Promise<void> {
    await this.db('mcp_tools').insert({
      ...row,
      name: text(row.name),
      input_schema: schemaText({ type: 'object' }),
      output_schema: null,
      available: false,
    });
  }

  /** The tools with these ids (any server), locked for update. */
  async toolsByIdsForUpdate(ids: readonly string[]): Promise<Pick<DbToolRow, 'id' | 'server_id' | 'enabled'>[]> {
    return this.db('mcp_tools')
      .select('id', 'server_id', 'enabled')
      .whereIn('id', [...ids])
      .forUpdate();
  }

  /** Sets `enabled` on those of the tools whose state differs; returns the ids changed. */
  async setToolsEnabled(ids: readonly string[], enabled: boolean): Promise<string[]> {
    const rows: { id: string }[] = await this.db('mcp_tools')
      .whereIn('id', [...ids])
      .andWhere('enabled', !enabled)
      .update({ enabled, updated_at: this.db.fn.now() })
      .returning(['id']);
    return rows.map((r) => r.id);
  }

  /** A page of tools, by server name then tool name, with filters. */
  async pageTools(options: {
    offset: number;
    limit: number;
    search?: string;
    serverId?: string;
    enabled?: boolean;
  }): Promise<{ rows: DbToolWithServerRow[]; total: number }> {
    const filter = (q: Knex.QueryBuilder) => {
      if (options.serverId) q.where('t.server_id', options.serverId);
      if (options.enabled !== undefined) q.where('t.enabled', options.enabled);
      matching(q, options.search, ['t.name', 't.description']);
    };
    const { rows, total } = await pageOf<Record<string, unknown>>(
      () => this.db('mcp_tools as t').join('mcp_servers as s', 's.id', 't.server_id').modify(filter),
      (q) => q.select([...TOOL_COLUMNS.map((c) => `t.${c}`), 's.name as server_name']).orderByRaw('lower(s.name), s.id, t.name'),
      options,
    );
    return { rows: rows.map((r) => toolFromDb(r) as DbToolWithServerRow), total };
  }

  async pageResources(options: {
    serverId: string;
    offset: number;
    limit: number;
    search?: string;
  }): Promise<{ rows: DbResourceRow[]; total: number }> {
    const filter = (q: Knex.QueryBuilder) => {
      q.where('server_id', options.serverId);
      matching(q, options.search, ['uri', 'name']);
    };
    const { rows, total } = await pageOf<Record<string, unknown>>(
      () => this.db('mcp_resources').modify(filter),
      (q) => q.select(RESOURCE_COLUMNS).orderBy([{ column: 'uri' }, { column: 'is_template' }]),
      options,
    );
    return { rows: rows.map(resourceFromDb), total };
  }

  async pagePrompts(options: {
    serverId: string;
    offset: number;
    limit: number;
    search?: string;
  }): Promise<{ rows: DbPromptRow[]; total: number }> {
    const filter = (q: Knex.QueryBuilder) => {
      q.where('server_id', options.serverId);
      matching(q, options.search, ['name', 'description']);
    };
    return pageOf<DbPromptRow>(
      () => this.db('mcp_prompts').modify(filter),
      (q) => q.select(PROMPT_COLUMNS).orderBy('name'),
      options,
    );
  }
}
