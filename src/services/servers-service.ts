import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { BadRequestError, ConflictError, NotFoundError, RequestValidationError, type ValidationIssue } from '../errors.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Logger } from '../logger.js';
import type { UpstreamPoolOptions, UpstreamServerSpec, UpstreamState } from '../mcp/upstream/upstream-connection.js';
import { UpstreamPool, type UpstreamListing } from '../mcp/upstream/upstream-pool.js';
import type { CatalogStore, DbPromptRow, DbResourceRow, DbToolRow } from '../stores/catalog-store.js';
import type { DbServerRow, DbTransport, ServersStore } from '../stores/servers-store.js';
import type { CatalogTool, JsonSchemaObject } from './catalog-types.js';
import type { InMemoryCatalog, ServerCatalogEntry } from './in-memory-catalog.js';

/** Defaults given to servers registered without their own values (general settings). */
export interface ServerDefaults {
  callTimeoutMs: number;
  healthCheckIntervalSeconds: number;
}

/** Built-in defaults, used until general settings provide others. */
export const BUILTIN_SERVER_DEFAULTS: ServerDefaults = { callTimeoutMs: 60_000, healthCheckIntervalSeconds: 60 };

/** A server as the registry receives it (already schema-validated). */
export interface ServerCreateInput {
  name: string;
  description?: string | null;
  transport: DbTransport;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  secret_env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  enabled?: boolean;
  call_timeout_ms?: number;
  health_check_interval_seconds?: number;
}

/** A partial update: `undefined` leaves a field alone, `null` clears it; maps are merge patches. */
export interface ServerUpdateInput {
  name?: string;
  description?: string | null;
  transport?: DbTransport;
  command?: string | null;
  args?: string[];
  env?: Record<string, string | null>;
  secret_env?: Record<string, string | null>;
  cwd?: string | null;
  url?: string | null;
  headers?: Record<string, string | null>;
  call_timeout_ms?: number;
  health_check_interval_seconds?: number;
}

/** A server's connection state as shown to admins (live where the pool knows it, else last recorded). */
export interface ServerStatusView {
  status: 'connecting' | 'connected' | 'error' | 'disabled';
  lastError: string | null;
  lastConnectedAt: Date | null;
  protocolVersion: string | null;
  serverInfo: Record<string, unknown> | null;
  latencyMs: number | null;
  toolCount: number;
  resourceCount: number;
  promptCount: number;
}

export interface ServersServiceDeps {
  knex: Knex;
  servers: ServersStore;
  catalogStore: CatalogStore;
  catalog: InMemoryCatalog;
  secrets: SecretBox;
  logger: Logger;
  pool: Omit<UpstreamPoolOptions, 'logger'>;
  /** Current defaults for new servers (general settings); built-in values when absent. */
  defaults?: () => Promise<ServerDefaults> | ServerDefaults;
}

/** Header names the transport itself owns; an admin may not set them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

const STDIO_ONLY = ['command', 'args', 'env', 'secret_env', 'cwd'] as const;
const HTTP_ONLY = ['url', 'headers'] as const;
const SYNC_DEBOUNCE_MS = 50;

const issue = (field: string, msg: string, type: string, input: unknown, ctx: Record<string, unknown> = {}): ValidationIssue => ({
  loc: ['body', field],
  msg,
  type,
  input,
  ctx,
});

/** Checks what the schema cannot: URLs that parse as http(s), header names and values fit for the wire. */
function checkConnectionFields(input: { url?: string | null; headers?: Record<string, string | null> }): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof input.url === 'string') {
    let parsed: URL | undefined;
    try {
      parsed = new URL(input.url);
    } catch {
      issues.push(issue('url', 'URL is not valid', 'url_parsing', input.url));
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      issues.push(issue('url', 'URL scheme should be http or https', 'url_scheme', input.url, { expected_schemes: 'http, https' }));
    if (parsed && (parsed.username || parsed.password))
      issues.push(issue('url', 'Credentials in the URL are not allowed; use headers', 'url_credentials', '[redacted]'));
  }
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      issues.push({
        loc: ['body', 'headers', name],
        msg: `Header ${name} is set by the transport`,
        type: 'header_reserved',
        input: '[redacted]',
        ctx: {},
      });
    if (typeof value === 'string' && /[\r\n\0]/.test(value))
      issues.push({
        loc: ['body', 'headers', name],
        msg: 'Header values may not contain CR, LF or NUL',
        type: 'header_value',
        input: '[redacted]',
        ctx: {},
      });
  }
  return issues;
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

function asObjectSchema(value: unknown): JsonSchemaObject {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    return (v.type === 'object' ? v : { ...v, type: 'object' }) as JsonSchemaObject;
  }
  return { type: 'object' };
}

const nullable = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const objOrNull = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * The server registry: CRUD of upstream servers, the shared upstream pool, catalog sync into the
 * database and into the in-memory catalog the hot path reads, tool selection and health.
 */
export class ServersService {
  /** The shared upstream pool; `services.upstreams`. */
  readonly pool: UpstreamPool;
  private readonly syncs = new Map<string, { running: Promise<void>; again: boolean }>();
  private readonly syncTimers = new Map<string, NodeJS.Timeout>();
  private readonly pendingWrites = new Set<Promise<unknown>>();
  private closing = false;

  constructor(private readonly deps: ServersServiceDeps) {
    this.pool = new UpstreamPool(
      { ...deps.pool, logger: deps.logger },
      {
        onConnected: (serverId) => this.scheduleSync(serverId, 0),
        onStateChange: (serverId, state) => this.stateChanged(serverId, state),
        onListChanged: (serverId, kind) => {
          deps.logger.info({ serverId, kind }, 'upstream list changed');
          this.scheduleSync(serverId, SYNC_DEBOUNCE_MS);
        },
      },
    );
  }

  // ---------------------------------------------------------------- start and stop

  /** Fills the in-memory catalog from the database (before the HTTP server listens). */
  async loadCatalog(): Promise<void> {
    const rows = await this.deps.servers.all();
    const [tools, resources, prompts] = await Promise.all([
      this.deps.catalogStore.toolsOfServers(),
      this.deps.catalogStore.resourcesOfServers(),
      this.deps.catalogStore.promptsOfServers(),
    ]);
    for (const row of rows) {
      this.deps.catalog.putServer(
        row.id,
        this.entry(
          row,
          tools.filter((t) => t.server_id === row.id),
          resources.filter((r) => r.server_id === row.id),
          prompts.filter((p) => p.server_id === row.id),
        ),
      );
    }
  }

  /** Starts connecting every enabled server, in the background (never awaited by start-up). */
  connectAll(): void {
    void (async () => {
      try {
        for (const row of await this.deps.servers.all()) if (row.enabled) await this.pool.upsert(this.spec(row));
      } catch (err) {
        this.deps.logger.error({ err }, 'could not start upstream connections');
      }
    })();
  }

  /** Closes the pool (every stdio process ends) and waits for pending health writes. */
  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.syncTimers.values()) clearTimeout(t);
    this.syncTimers.clear();
    await this.pool.close();
    await Promise.allSettled([...this.pendingWrites, ...[...this.syncs.values()].map((s) => s.running)]);
  }

  // ---------------------------------------------------------------- CRUD

  async create(input: ServerCreateInput): Promise<DbServerRow> {
    const issues = checkConnectionFields(input);
    if (issues.length) throw new RequestValidationError(issues);
    if (await this.deps.servers.findByName(input.name))
      throw new ConflictError(`A server named "${input.name}" exists`, 'server_name_taken');
    const defaults = await this.defaults();
    const stdio = input.transport === 'stdio';
    const secretEnv = stdio ? (input.secret_env ?? {}) : {};
    const headers = stdio ? {} : (input.headers ?? {});
    let row: DbServerRow;
    try {
      row = await this.deps.servers.insert({
        id: randomUUID(),
        name: input.name,
        description: input.description ?? null,
        transport: input.transport,
        command: stdio ? (input.command ?? null) : null,
        args: stdio ? (input.args ?? []) : [],
        env: stdio ? (input.env ?? {}) : {},
        secret_env_sealed: this.seal(secretEnv),
        secret_env_keys: Object.keys(secretEnv).sort(),
        cwd: stdio ? (input.cwd ?? null) : null,
        url: stdio ? null : (input.url ?? null),
        headers_sealed: this.seal(headers),
        header_names: Object.keys(headers).sort(),
        enabled: input.enabled ?? true,
        last_error: null,
        last_connected_at: null,
        protocol_version: null,
        server_info: null,
        latency_ms: null,
        call_timeout_ms: input.call_timeout_ms ?? defaults.callTimeoutMs,
        health_check_interval_seconds: input.health_check_interval_seconds ?? defaults.healthCheckIntervalSeconds,
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`A server named "${input.name}" exists`, 'server_name_taken');
      throw err;
    }
    this.deps.catalog.putServer(row.id, this.entry(row, [], [], []));
    this.deps.logger.info({ serverId: row.id, name: row.name, transport: row.transport }, 'server registered');
    if (row.enabled) await this.pool.upsert(this.spec(row));
    return row;
  }

  async get(id: string): Promise<DbServerRow> {
    const row = await this.deps.servers.findById(id);
    if (!row) throw new NotFoundError('No such server', 'server_not_found');
    return row;
  }

  async list(options: { page: number; pageSize: number; search?: string; status?: ServerStatusView['status'] }) {
    const offset = (options.page - 1) * options.pageSize;
    if (!options.status) {
      return this.deps.servers.page({ offset, limit: options.pageSize, ...(options.search ? { search: options.search } : {}) });
    }
    // Status is live state (memory), so the filter runs on the ids the pool and catalog know.
    const all = await this.deps.servers.page({ offset: 0, limit: 1_000_000, ...(options.search ? { search: options.search } : {}) });
    const matching = all.rows.filter((r) => this.status(r).status === options.status);
    return { rows: matching.slice(offset, offset + options.pageSize), total: matching.length };
  }

  async update(id: string, patch: ServerUpdateInput): Promise<DbServerRow> {
    const issues = checkConnectionFields(patch);
    if (issues.length) throw new RequestValidationError(issues);
    const { knex, servers } = this.deps;
    let before: DbServerRow | undefined;
    const updated = await knex.transaction(async (trx) => {
      const store = servers.with(trx);
      const row = await store.findByIdForUpdate(id);
      if (!row) throw new NotFoundError('No such server', 'server_not_found');
      before = row;
      const transport = patch.transport ?? row.transport;
      const stdio = transport === 'stdio';
      const wrong = (stdio ? HTTP_ONLY : STDIO_ONLY).filter((f) => patch[f] !== undefined && patch[f] !== null);
      if (wrong.length)
        throw new RequestValidationError(
          wrong.map((f) => issue(f, `${f} is not allowed with transport ${transport}`, 'extra_forbidden', '[redacted]')),
        );
      const changingTransport = transport !== row.transport;
      const next: Partial<DbServerRow> = {};
      if (patch.name !== undefined) next.name = patch.name;
      if (patch.description !== undefined) next.description = patch.description;
      if (patch.call_timeout_ms !== undefined) next.call_timeout_ms = patch.call_timeout_ms;
      if (patch.health_check_interval_seconds !== undefined) next.health_check_interval_seconds = patch.health_check_interval_seconds;
      if (changingTransport) next.transport = transport;
      if (stdio) {
        if (changingTransport) Object.assign(next, { url: null, headers_sealed: null, header_names: [] });
        if (patch.command !== undefined) next.command = patch.command;
        if (patch.args !== undefined) next.args = patch.args;
        if (patch.cwd !== undefined) next.cwd = patch.cwd;
        if (patch.env !== undefined) next.env = mergePatch(row.env, patch.env);
        if (patch.secret_env !== undefined) {
          const merged = mergePatch(this.open(row.secret_env_sealed), patch.secret_env);
          next.secret_env_sealed = this.seal(merged);
          next.secret_env_keys = Object.keys(merged).sort();
        }
      } else {
        if (changingTransport)
          Object.assign(next, { command: null, args: [], env: {}, cwd: null, secret_env_sealed: null, secret_env_keys: [] });
        if (patch.url !== undefined) next.url = patch.url;
        if (patch.headers !== undefined) {
          const merged = mergePatch(changingTransport ? {} : this.open(row.headers_sealed), patch.headers);
          next.headers_sealed = this.seal(merged);
          next.header_names = Object.keys(merged).sort();
        }
      }
      const merged = { ...row, ...next };
      const missing = stdio ? (merged.command ? [] : ['command']) : merged.url ? [] : ['url'];
      if (missing.length)
        throw new RequestValidationError(missing.map((f) => issue(f, `${f} is required with transport ${transport}`, 'missing', null)));
      if (Object.keys(merged.env).length > 100 || merged.secret_env_keys.length > 100 || merged.header_names.length > 50)
        throw new RequestValidationError([issue('env', 'Too many variables or headers after the merge', 'too_long', null)]);
      if (next.name !== undefined && next.name.toLowerCase() !== row.name.toLowerCase()) {
        const clash = await store.findByName(next.name);
        if (clash && clash.id !== id) throw new ConflictError(`A server named "${next.name}" exists`, 'server_name_taken');
      }
      try {
        return (await store.update(id, next))!;
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`A server named "${patch.name ?? ''}" exists`, 'server_name_taken');
        throw err;
      }
    });
    if (before && before.name !== updated.name) await this.reloadCatalog(id);
    if (updated.enabled) await this.pool.upsert(this.spec(updated));
    return updated;
  }

  async delete(id: string): Promise<void> {
    await this.get(id);
    await this.pool.remove(id);
    await this.deps.servers.delete(id);
    this.deps.catalog.removeServer(id);
    this.deps.logger.info({ serverId: id }, 'server deleted');
  }

  async setEnabled(id: string, enabled: boolean): Promise<DbServerRow> {
    const row = await this.get(id);
    const updated = row.enabled === enabled ? row : ((await this.deps.servers.update(id, { enabled })) ?? row);
    if (enabled) {
      await this.pool.upsert(this.spec(updated));
    } else {
      await this.pool.remove(id);
    }
    await this.reloadCatalog(id);
    return updated;
  }

  /** Reconnects when needed and re-reads the server's lists; answers with the server as it then is. */
  async refresh(id: string): Promise<DbServerRow> {
    const row = await this.get(id);
    if (!row.enabled) throw new ConflictError('The server is disabled; enable it first', 'server_disabled');
    if (!this.pool.has(id)) await this.pool.upsert(this.spec(row));
    const state = this.pool.state(id);
    if (state?.status === 'error') this.pool.reconnect(id, 'refresh requested');
    await this.sync(id, this.deps.pool.connectTimeoutMs + row.call_timeout_ms).catch(() => undefined);
    return this.get(id);
  }

  // ---------------------------------------------------------------- tool selection

  /**
   * Enables or disables tools of one server, atomically: an unknown id or a tool of another
   * server changes nothing (400). Returns how many tools actually changed.
   */
  async setToolSelection(serverId: string, toolIds: readonly string[], enabled: boolean): Promise<number> {
    await this.get(serverId);
    const changed = await this.deps.knex.transaction(async (trx) => {
      const store = this.deps.catalogStore.with(trx);
      const found = await store.toolsByIdsForUpdate(toolIds);
      const mine = new Set(found.filter((t) => t.server_id === serverId).map((t) => t.id));
      const bad = toolIds.filter((id) => !mine.has(id));
      if (bad.length) {
        const shown = bad.slice(0, 10).join(', ') + (bad.length > 10 ? `, and ${bad.length - 10} more` : '');
        throw new BadRequestError(`Not tools of this server: ${shown}`, 'unknown_tool_ids');
      }
      return store.setToolsEnabled(toolIds, enabled);
    });
    if (changed.length) this.deps.catalog.setToolsEnabled(changed, enabled);
    return changed.length;
  }

  // ---------------------------------------------------------------- listings

  listTools(options: { page: number; pageSize: number; search?: string; serverId?: string; enabled?: boolean }) {
    return this.deps.catalogStore.pageTools({
      offset: (options.page - 1) * options.pageSize,
      limit: options.pageSize,
      ...(options.search ? { search: options.search } : {}),
      ...(options.serverId ? { serverId: options.serverId } : {}),
      ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
    });
  }

  async listResources(serverId: string, options: { page: number; pageSize: number; search?: string }) {
    await this.get(serverId);
    return this.deps.catalogStore.pageResources({
      serverId,
      offset: (options.page - 1) * options.pageSize,
      limit: options.pageSize,
      ...(options.search ? { search: options.search } : {}),
    });
  }

  async listPrompts(serverId: string, options: { page: number; pageSize: number; search?: string }) {
    await this.get(serverId);
    return this.deps.catalogStore.pagePrompts({
      serverId,
      offset: (options.page - 1) * options.pageSize,
      limit: options.pageSize,
      ...(options.search ? { search: options.search } : {}),
    });
  }

  /** Connection state and catalog counts of a server, live where known. */
  status(row: DbServerRow): ServerStatusView {
    const live = row.enabled ? this.pool.state(row.id) : undefined;
    const connected = live?.status === 'connected';
    return {
      status: !row.enabled ? 'disabled' : (live?.status ?? 'connecting'),
      lastError: live ? live.lastError : row.enabled ? row.last_error : null,
      lastConnectedAt: live?.lastConnectedAt ?? row.last_connected_at,
      protocolVersion: live?.protocolVersion ?? row.protocol_version,
      serverInfo: (live?.serverInfo as Record<string, unknown> | null | undefined) ?? row.server_info,
      latencyMs: connected ? (live?.latencyMs ?? row.latency_ms) : row.latency_ms,
      toolCount: this.deps.catalog.toolsOfServer(row.id).length,
      resourceCount: this.deps.catalog.resourcesOfServer(row.id).length + this.deps.catalog.resourceTemplatesOfServer(row.id).length,
      promptCount: this.deps.catalog.promptsOfServer(row.id).length,
    };
  }

  /** Whether the server is registered and enabled (from memory). */
  isEnabled(serverId: string): boolean {
    return this.deps.catalog.serverState(serverId)?.enabled ?? false;
  }

  /** Whether the server is enabled and connected right now (from memory). */
  isConnected(serverId: string): boolean {
    return this.pool.state(serverId)?.status === 'connected';
  }

  // ---------------------------------------------------------------- sync

  /** Syncs soon (coalescing bursts of list_changed notifications). */
  private scheduleSync(serverId: string, delayMs: number): void {
    if (this.closing) return;
    clearTimeout(this.syncTimers.get(serverId));
    const timer = setTimeout(() => {
      this.syncTimers.delete(serverId);
      this.sync(serverId).catch((err) =>
        this.deps.logger.warn({ serverId, reason: err instanceof Error ? err.message : String(err) }, 'catalog sync failed'),
      );
    }, delayMs);
    timer.unref();
    this.syncTimers.set(serverId, timer);
  }

  /**
   * Reads every list of the upstream and stores it: one sync per server at a time; a request
   * arriving during a sync runs once more after it (so the newest list always wins).
   */
  async sync(serverId: string, timeoutMs?: number): Promise<void> {
    const current = this.syncs.get(serverId);
    if (current) {
      current.again = true;
      return current.running;
    }
    const slot = { running: Promise.resolve(), again: false };
    slot.running = (async () => {
      try {
        do {
          slot.again = false;
          await this.syncOnce(serverId, timeoutMs);
        } while (slot.again && !this.closing);
      } finally {
        this.syncs.delete(serverId);
      }
    })();
    this.syncs.set(serverId, slot);
    return slot.running;
  }

  private async syncOnce(serverId: string, timeoutMs?: number): Promise<void> {
    if (this.closing || !this.pool.has(serverId)) return;
    const listing = await this.pool.list(serverId, { timeoutMs: timeoutMs ?? this.deps.pool.connectTimeoutMs });
    if (this.closing) return;
    const { knex, catalogStore } = this.deps;
    await knex.transaction(async (trx) => {
      const store = catalogStore.with(trx);
      await store.syncTools(serverId, dedupeTools(listing.tools).map(toolUpsert), randomUUID);
      await store.syncResources(serverId, resourceUpserts(listing), randomUUID);
      await store.syncPrompts(serverId, listing.prompts.map(promptUpsert), randomUUID);
    });
    await this.reloadCatalog(serverId);
    this.deps.logger.info(
      {
        serverId,
        tools: listing.tools.length,
        resources: listing.resources.length + listing.resourceTemplates.length,
        prompts: listing.prompts.length,
      },
      'catalog synced',
    );
  }

  /** Rebuilds the in-memory entry of one server from the database (also after skill attachments change). */
  async reloadCatalog(serverId: string): Promise<void> {
    const row = await this.deps.servers.findById(serverId);
    if (!row) {
      this.deps.catalog.removeServer(serverId);
      return;
    }
    const [tools, resources, prompts] = await Promise.all([
      this.deps.catalogStore.toolsOfServers([serverId]),
      this.deps.catalogStore.resourcesOfServers([serverId]),
      this.deps.catalogStore.promptsOfServers([serverId]),
    ]);
    this.deps.catalog.putServer(serverId, this.entry(row, tools, resources, prompts));
  }

  private entry(row: DbServerRow, tools: DbToolRow[], resources: DbResourceRow[], prompts: DbPromptRow[]): ServerCatalogEntry {
    return {
      name: row.name,
      enabled: row.enabled,
      connected: row.enabled && this.isConnected(row.id),
      tools: tools.map((t): CatalogTool => ({
        id: t.id,
        serverId: row.id,
        serverName: row.name,
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: asObjectSchema(t.input_schema),
        outputSchema: t.output_schema ? asObjectSchema(t.output_schema) : null,
        annotations: t.annotations,
        meta: t.meta,
        enabled: t.enabled,
        // Offered at the last sync and on an enabled server; live connection is serverState().connected.
        available: t.available && row.enabled,
        ...(t.skill_attachment_id ? { script: true } : {}),
      })),
      resources: resources
        .filter((r) => !r.is_template)
        .map((r) => ({
          serverId: row.id,
          uri: r.uri,
          name: r.name,
          title: r.title,
          description: r.description,
          mimeType: r.mime_type,
          size: r.size,
          annotations: r.annotations,
        })),
      resourceTemplates: resources
        .filter((r) => r.is_template)
        .map((r) => ({
          serverId: row.id,
          uriTemplate: r.uri,
          name: r.name,
          title: r.title,
          description: r.description,
          mimeType: r.mime_type,
        })),
      prompts: prompts.map((p) => ({ serverId: row.id, name: p.name, title: p.title, description: p.description, arguments: p.arguments })),
    };
  }

  // ---------------------------------------------------------------- health

  private stateChanged(serverId: string, state: UpstreamState): void {
    const connected = state.status === 'connected';
    const known = this.deps.catalog.serverState(serverId);
    if (known && known.connected !== connected) this.deps.catalog.patchServer(serverId, { connected });
    if (this.closing) return;
    const patch =
      state.status === 'connected'
        ? {
            last_error: null,
            last_connected_at: state.lastConnectedAt,
            protocol_version: state.protocolVersion,
            server_info: (state.serverInfo as Record<string, unknown> | null) ?? null,
            latency_ms: state.latencyMs,
          }
        : state.status === 'error'
          ? { last_error: state.lastError }
          : undefined;
    if (!patch) return;
    const write = this.deps.servers
      .recordHealth(serverId, patch)
      .catch((err) => this.deps.logger.debug({ serverId, err: String(err) }, 'could not record upstream health'));
    this.pendingWrites.add(write);
    void write.finally(() => this.pendingWrites.delete(write));
  }

  // ---------------------------------------------------------------- helpers

  private async defaults(): Promise<ServerDefaults> {
    return (await this.deps.defaults?.()) ?? BUILTIN_SERVER_DEFAULTS;
  }

  private seal(values: Record<string, string>): string | null {
    return Object.keys(values).length ? this.deps.secrets.seal(JSON.stringify(values)) : null;
  }

  private open(sealed: string | null): Record<string, string> {
    return sealed ? (JSON.parse(this.deps.secrets.open(sealed)) as Record<string, string>) : {};
  }

  /** The pool's view of a server: its connection with secrets opened. */
  private spec(row: DbServerRow): UpstreamServerSpec {
    const base = {
      id: row.id,
      name: row.name,
      callTimeoutMs: row.call_timeout_ms,
      healthCheckIntervalMs: row.health_check_interval_seconds * 1000,
    };
    if (row.transport === 'stdio') {
      return {
        ...base,
        connection: {
          transport: 'stdio',
          command: row.command ?? '',
          args: row.args,
          env: { ...row.env, ...this.open(row.secret_env_sealed) },
          cwd: row.cwd,
        },
      };
    }
    return { ...base, connection: { transport: row.transport, url: row.url ?? '', headers: this.open(row.headers_sealed) } };
  }
}

/** Applies a JSON merge patch of string values (null removes). */
function mergePatch(base: Record<string, string>, patch: Record<string, string | null>): Record<string, string> {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Tool names are unique per server: the first definition of a name wins. */
function dedupeTools(tools: Tool[]): Tool[] {
  const seen = new Set<string>();
  return tools.filter((t) => (seen.has(t.name) ? false : (seen.add(t.name), true)));
}

function toolUpsert(t: Tool) {
  return {
    name: t.name,
    title: nullable(t.title ?? (t.annotations?.title as string | undefined)),
    description: nullable(t.description),
    input_schema: asObjectSchema(t.inputSchema),
    output_schema: t.outputSchema ? asObjectSchema(t.outputSchema) : null,
    annotations: objOrNull(t.annotations),
    meta: objOrNull(t._meta),
  };
}

function resourceUpserts(listing: UpstreamListing) {
  const fromResource = (r: Resource) => ({
    uri: r.uri,
    is_template: false,
    name: r.name,
    title: nullable(r.title),
    description: nullable(r.description),
    mime_type: nullable(r.mimeType),
    size: typeof r.size === 'number' ? r.size : null,
    annotations: objOrNull(r.annotations),
  });
  const fromTemplate = (r: ResourceTemplate) => ({
    uri: r.uriTemplate,
    is_template: true,
    name: r.name,
    title: nullable(r.title),
    description: nullable(r.description),
    mime_type: nullable(r.mimeType),
    size: null,
    annotations: objOrNull(r.annotations),
  });
  return [...listing.resources.map(fromResource), ...listing.resourceTemplates.map(fromTemplate)];
}

function promptUpsert(p: Prompt) {
  return {
    name: p.name,
    title: nullable(p.title),
    description: nullable(p.description),
    arguments: (p.arguments ?? []).map((a) => ({
      name: a.name,
      ...(a.description !== undefined ? { description: a.description } : {}),
      ...(a.required !== undefined ? { required: a.required } : {}),
    })),
  };
}
