/**
 * The server registry (ServersService below): one job, the lifecycle of a registered upstream
 * server — create, update, enable/disable, delete, refresh — with the rules each write must keep
 * (outbound policy, reserved headers, transport-specific fields, sealed secrets, sandbox and
 * network approval) in the same transaction as the row. The field rules the configuration import
 * shares have their own modules (server-connection-fields.ts: URL and headers;
 * server-oauth-settings.ts: the upstream OAuth client settings), as do the catalog sync, the
 * sandbox and the OAuth vault it hands off to.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConflictError, NotFoundError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import { formatAllowlistEntry, parseAllowlistEntry, type OutboundPolicy } from '../../lib/outbound-policy.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Logger } from '../../logger.js';
import type { DbServerRow, ServersStore } from '../../stores/servers-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import type { BundlesService } from '../bundles/bundles-service.js';
import type { CatalogSync, ServerStatusView } from './catalog-sync.js';
import type { InMemoryCatalog } from '../../live/in-memory-catalog.js';
import { pageResult, pageWindow, type PageOf, type PageQuery } from '../pagination.js';

import { roleAtLeast, type Role } from '../../domain/principal.js';
import { BUILTIN_SERVER_DEFAULTS, type ServerDefaults } from '../../domain/server-defaults.js';
import { stdioLaunchAllowed } from '../../domain/stdio-commands.js';
import { connectionFieldIssues } from './server-connection-fields.js';
import { noOAuthColumns, oauthColumns, oauthSettingsView, refuseStdioOAuth } from './server-oauth-settings.js';

type Schemas = components['schemas'];
export type ServerView = Schemas['MCPServer'];

const STDIO_ONLY = ['command', 'args', 'env', 'secret_env', 'cwd'] as const;
const HTTP_ONLY = ['url', 'headers'] as const;

const issue = (field: string, msg: string, type: string, input: unknown, ctx: Record<string, unknown> = {}): ValidationIssue => ({
  loc: ['body', field],
  msg,
  type,
  input,
  ctx,
});

/** Applies a JSON merge patch of string values (null removes). */
function mergePatch(base: Record<string, string>, patch: Record<string, string | null>): Record<string, string> {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * The server registry: CRUD of upstream servers, with the rules the schema cannot state (URLs under
 * the outbound-address policy, reserved headers, transport-specific fields, merge patches of
 * secrets). After each committed change it tells the catalog sync to connect, reconnect or
 * disconnect; deleting a server also removes its tools from every bundle, in the same transaction.
 */
export class ServersService {
  constructor(
    private readonly deps: {
      tx: Transactor;
      servers: ServersStore;
      catalog: InMemoryCatalog;
      sync: CatalogSync;
      bundles: BundlesService;
      /** Script tools of attached skills: a deleted server's leave memory with it. */
      scriptTools: { forgetServer(serverId: string): void };
      secrets: SecretBox;
      outboundPolicy: OutboundPolicy;
      clock: Clock;
      logger: Logger;
      /** The admin activity log: each change is recorded in its own transaction. */
      activity: ActivityLog;
      /** The values servers without their own follow (general settings, in memory); built-in values when absent. */
      defaults?: () => ServerDefaults;
      /** Tells the other instances (scale-out) that a server's registration or catalog changed here. */
      announce?: (serverId: string) => void;
      /**
       * `<dataDir>/generated`, where generation jobs write servers: deleting a server whose working
       * directory is one of its folders deletes that folder too (nothing else uses it).
       */
      generatedRoot?: string;
      /** The commands stdio servers may run (`TOOLGATE_STDIO_COMMANDS`); empty: any. */
      stdioCommands?: readonly string[];
      /** Whether this host can run sandboxed servers (bubblewrap, prlimit, setpriv as root). */
      sandboxAvailable?: () => boolean;
      /** A server's URL or OAuth client settings changed: what was discovered and registered for it is stale. */
      oauthChanged?: (serverId: string) => Promise<void>;
    },
  ) {}

  /** Whether this host can run sandboxed servers. */
  sandboxAvailable(): boolean {
    return this.deps.sandboxAvailable?.() ?? false;
  }

  private checkSandboxed(sandboxed: boolean | undefined, transport: string): void {
    if (!sandboxed) return;
    if (transport !== 'stdio')
      throw new RequestValidationError([issue('sandboxed', 'Only stdio servers run in a sandbox', 'sandbox_stdio_only', true)]);
    if (!(this.deps.sandboxAvailable?.() ?? false))
      throw new RequestValidationError([
        issue('sandboxed', 'This host cannot run the sandbox (bubblewrap, prlimit and setpriv are needed)', 'sandbox_unavailable', true),
      ]);
  }

  /**
   * Whether a stdio server may run `command` in `cwd`: on the admin's list, or the jailed launch
   * Toolgate itself writes for a generated server (working directory in the generated folder).
   */
  mayRun(command: string, cwd: string | null): boolean {
    return stdioLaunchAllowed(command, cwd, this.deps.stdioCommands ?? [], this.deps.generatedRoot);
  }

  private refuseCommand(command: string): RequestValidationError {
    const list = (this.deps.stdioCommands ?? []).join(', ');
    return new RequestValidationError([
      issue('command', `This command may not be run here: TOOLGATE_STDIO_COMMANDS allows ${list}`, 'command_not_allowed', command),
    ]);
  }

  /**
   * Registers a server. `within` runs in the same transaction once the row is written (an OpenAPI
   * server stores its document there, so it is never registered without one).
   */
  async create(input: Schemas['MCPServerCreate'], within?: (stores: Stores, row: DbServerRow) => Promise<void>): Promise<ServerView> {
    const issues = this.checkConnectionFields(input);
    if (issues.length) throw new RequestValidationError(issues);
    if (await this.deps.servers.findByName(input.name))
      throw new ConflictError(`A server named "${input.name}" exists`, 'server_name_taken');
    const stdio = input.transport === 'stdio';
    if (stdio && input.command && !this.mayRun(input.command, input.cwd ?? null)) throw this.refuseCommand(input.command);
    this.checkSandboxed(input.sandboxed, input.transport);
    const secretEnv = stdio ? (input.secret_env ?? {}) : {};
    const headers = stdio ? {} : (input.headers ?? {});
    const row = await this.deps.tx.transaction(async (stores) => {
      const created = await stores.servers.insert({
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
        // Omitted: the server follows the general settings, also when they change later.
        call_timeout_ms: input.call_timeout_ms ?? null,
        health_check_interval_seconds: input.health_check_interval_seconds ?? null,
        tool_changes: input.tool_changes ?? 'require_approval',
        sandboxed: stdio && input.sandboxed === true,
        network_approved: [],
        network_requested: null,
        ...oauthColumns(this.deps.secrets, stdio ? 'none' : (input.auth_mode ?? 'none'), input.oauth, undefined),
      });
      await within?.(stores, created);
      await this.deps.activity.record(stores, {
        action: 'server.create',
        target: { type: 'server', id: created.id, name: created.name },
        details: { transport: created.transport, enabled: created.enabled },
      });
      return created;
    });
    this.deps.sync.registered(row);
    this.deps.logger.info({ serverId: row.id, name: row.name, transport: row.transport }, 'server registered');
    this.deps.announce?.(row.id);
    if (row.enabled) await this.deps.sync.connect(row);
    return this.view(row);
  }

  private defaults(): ServerDefaults {
    return this.deps.defaults?.() ?? BUILTIN_SERVER_DEFAULTS;
  }

  /** Whether a server of this name is registered (a generation job checks before it starts). */
  async nameTaken(name: string): Promise<boolean> {
    return (await this.deps.servers.findByName(name)) !== undefined;
  }

  /** One server as the caller may see it (redacted for members). */
  async get(id: string, caller: { role: Role }): Promise<ServerView> {
    return redactedFor(caller, this.view(await this.row(id)));
  }

  /** A page of servers as the caller may see them (redacted for members). */
  async list(
    query: PageQuery & { search?: string | undefined; status?: ServerStatusView['status'] | undefined },
    caller: { role: Role },
  ): Promise<PageOf<ServerView>> {
    const window = pageWindow(query);
    const filters = { search: query.search || undefined };
    const show = (r: DbServerRow): ServerView => redactedFor(caller, this.view(r));
    if (!query.status) {
      const { rows, total } = await this.deps.servers.page(window, filters);
      return pageResult(window, rows, total, show);
    }
    // Status is live state (memory), so the filter runs over every matching server.
    const all = await this.deps.servers.page({ offset: 0, limit: 1_000_000 }, filters);
    const matching = all.rows.filter((r) => this.deps.sync.status(r).status === query.status);
    return pageResult(window, matching.slice(window.offset, window.offset + window.limit), matching.length, show);
  }

  async update(id: string, patch: Schemas['MCPServerUpdate']): Promise<ServerView> {
    const issues = this.checkConnectionFields(patch);
    if (issues.length) throw new RequestValidationError(issues);
    let before: DbServerRow | undefined;
    const updated = await this.deps.tx.transaction(async (stores) => {
      const store = stores.servers;
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
      if (patch.tool_changes !== undefined) next.tool_changes = patch.tool_changes;
      if (changingTransport) next.transport = transport;
      if (patch.sandboxed !== undefined) {
        this.checkSandboxed(patch.sandboxed, transport);
        next.sandboxed = patch.sandboxed;
      }
      if (!stdio && row.sandboxed) next.sandboxed = false;
      if (stdio) {
        if (changingTransport) Object.assign(next, { url: null, headers_sealed: null, header_names: [], ...noOAuthColumns() });
        refuseStdioOAuth(patch);
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
        if (patch.auth_mode !== undefined || patch.oauth !== undefined)
          Object.assign(next, oauthColumns(this.deps.secrets, patch.auth_mode ?? row.auth_mode, patch.oauth, row));
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
      if (stdio && (next.command !== undefined || next.cwd !== undefined || changingTransport) && !this.mayRun(merged.command!, merged.cwd))
        throw this.refuseCommand(merged.command!);
      if (Object.keys(merged.env).length > 100 || merged.secret_env_keys.length > 100 || merged.header_names.length > 50)
        throw new RequestValidationError([issue('env', 'Too many variables or headers after the merge', 'too_long', null)]);
      if (next.name !== undefined && next.name.toLowerCase() !== row.name.toLowerCase()) {
        const clash = await store.findByName(next.name);
        if (clash && clash.id !== id) throw new ConflictError(`A server named "${next.name}" exists`, 'server_name_taken');
      }
      const saved = (await store.update(id, next))!;
      // Field names only: the values of env, secret_env and headers stay out of the log.
      await this.deps.activity.record(stores, {
        action: 'server.update',
        target: { type: 'server', id, name: saved.name },
        details: { fields: Object.keys(patch).sort() },
      });
      return saved;
    });
    if (before && (before.url !== updated.url || patch.oauth !== undefined || patch.auth_mode !== undefined))
      await this.deps.oauthChanged?.(id);
    if (before && before.name !== updated.name) await this.deps.sync.reloadCatalog(id);
    this.deps.announce?.(id);
    if (updated.enabled) await this.deps.sync.connect(updated);
    return this.view(updated);
  }

  /**
   * Deletes a server with its catalog, and removes its tools from every bundle that holds them,
   * in one transaction; the bundles' connected MCP sessions then get `tools/list_changed`. The
   * script tools of skills attached to it are tools of the server like any other: they leave the
   * bundles here, their rows and the attachments go with the server's row, and the sandbox
   * forgets them.
   */
  async delete(id: string): Promise<void> {
    const affected = await this.deps.tx.transaction(async (stores) => {
      const row = await stores.servers.findByIdForUpdate(id);
      if (!row) throw new NotFoundError('No such server', 'server_not_found');
      const bundleIds = await stores.bundles.removeToolsOfServer(id, this.deps.clock.now());
      await stores.servers.delete(id);
      await this.deps.activity.record(stores, {
        action: 'server.delete',
        target: { type: 'server', id, name: row.name },
        details: { bundles_changed: bundleIds.length },
      });
      return { bundleIds, cwd: row.cwd };
    });
    await this.deps.sync.disconnect(id);
    await this.deps.bundles.republish(affected.bundleIds);
    this.deps.catalog.removeServer(id);
    this.deps.announce?.(id);
    this.deps.scriptTools.forgetServer(id);
    await this.removeGeneratedFolder(id, affected.cwd);
    this.deps.logger.info({ serverId: id, bundlesChanged: affected.bundleIds.length }, 'server deleted');
  }

  /** Deletes the folder of a generated server (its process has ended); a failure is logged, not thrown. */
  private async removeGeneratedFolder(serverId: string, cwd: string | null): Promise<void> {
    const root = this.deps.generatedRoot;
    if (!root || !cwd) return;
    const folder = path.resolve(cwd);
    // Only a direct child of the generated root: never the root itself, never anything outside it.
    if (path.dirname(folder) !== path.resolve(root)) return;
    await fs
      .rm(folder, { recursive: true, force: true })
      .catch((err: unknown) =>
        this.deps.logger.warn(
          { serverId, reason: err instanceof Error ? err.message : String(err) },
          'could not delete the generated server folder',
        ),
      );
  }

  async setEnabled(id: string, enabled: boolean): Promise<ServerView> {
    const updated = await this.deps.tx.transaction(async (stores) => {
      const row = await stores.servers.findByIdForUpdate(id);
      if (!row) throw new NotFoundError('No such server', 'server_not_found');
      const saved = row.enabled === enabled ? row : ((await stores.servers.update(id, { enabled })) ?? row);
      await this.deps.activity.record(stores, {
        action: enabled ? 'server.enable' : 'server.disable',
        target: { type: 'server', id, name: row.name },
        details: { changed: row.enabled !== enabled },
      });
      return saved;
    });
    if (enabled) await this.deps.sync.connect(updated);
    else await this.deps.sync.disconnect(id);
    await this.deps.sync.reloadCatalog(id);
    this.deps.announce?.(id);
    return this.view(updated);
  }

  /** Reconnects when needed and re-reads the server's lists; answers with the server as it then is. */
  async refresh(id: string): Promise<ServerView> {
    const row = await this.row(id);
    if (!row.enabled) throw new ConflictError('The server is disabled; enable it first', 'server_disabled');
    await this.deps.sync.refresh(row);
    const view = await this.get(id, ADMIN_VIEW);
    // The refresh's writes are the catalog sync's own; its outcome is the server's state after it.
    const failed = view.status === 'error';
    await this.deps.activity.append({
      action: 'server.refresh',
      target: { type: 'server', id, name: row.name },
      outcome: failed ? 'error' : 'success',
      details: { status: view.status, tool_count: view.tool_count },
    });
    return view;
  }

  /** The stored row of a server; 404 when there is none. */
  private async row(id: string): Promise<DbServerRow> {
    const row = await this.deps.servers.findById(id);
    if (!row) throw new NotFoundError('No such server', 'server_not_found');
    return row;
  }

  /** The wire form of a server: secrets never, only their names. */
  private view(row: DbServerRow): ServerView {
    const s = this.deps.sync.status(row);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      transport: row.transport,
      command: row.command,
      args: row.args,
      env: row.env,
      secret_env_keys: row.secret_env_keys,
      cwd: row.cwd,
      url: row.url,
      header_names: row.header_names,
      enabled: row.enabled,
      status: s.status,
      last_error: s.lastError,
      last_connected_at: s.lastConnectedAt?.toISOString() ?? null,
      protocol_version: s.protocolVersion,
      server_info: s.serverInfo && typeof s.serverInfo.name === 'string' ? (s.serverInfo as Schemas['ServerInfo']) : null,
      tool_count: s.toolCount,
      resource_count: s.resourceCount,
      prompt_count: s.promptCount,
      latency_ms: s.latencyMs,
      call_timeout_ms: row.call_timeout_ms ?? this.defaults().callTimeoutMs,
      health_check_interval_seconds: row.health_check_interval_seconds ?? this.defaults().healthCheckIntervalSeconds,
      inherited: [
        ...(row.call_timeout_ms === null ? (['call_timeout_ms'] as const) : []),
        ...(row.health_check_interval_seconds === null ? (['health_check_interval_seconds'] as const) : []),
      ],
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      tool_changes: row.tool_changes,
      sandboxed: row.sandboxed,
      network: { approved_hosts: row.network_approved, requested_hosts: row.network_requested },
      auth_mode: row.auth_mode,
      oauth: oauthSettingsView(row),
      redacted: false,
    };
  }

  /**
   * Sets the host:port list a sandboxed server's egress proxy lets through, and answers its pending
   * request; the server restarts so the list applies. Entries are checked as the outbound allow-list's.
   */
  async setNetwork(id: string, approvedHosts: readonly string[]): Promise<ServerView> {
    const issues: ValidationIssue[] = [];
    const approved: string[] = [];
    approvedHosts.forEach((raw, i) => {
      const entry = parseAllowlistEntry(raw);
      if (!entry)
        issues.push({
          loc: ['body', 'approved_hosts', i],
          msg: 'Not a host, host:port, host:*, address or CIDR range',
          type: 'network_entry',
          input: raw,
          ctx: {},
        });
      else approved.push(formatAllowlistEntry(entry));
    });
    if (issues.length) throw new RequestValidationError(issues);
    const updated = await this.deps.tx.transaction(async (stores) => {
      const row = await stores.servers.findByIdForUpdate(id);
      if (!row) throw new NotFoundError('No such server', 'server_not_found');
      if (!row.sandboxed)
        throw new ConflictError('This server is not sandboxed: it has no private network to open', 'server_not_sandboxed');
      const saved = (await stores.servers.update(id, { network_approved: [...new Set(approved)], network_requested: null }))!;
      await this.deps.activity.record(stores, {
        action: 'server.network_approve',
        target: { type: 'server', id, name: saved.name },
        details: { approved_hosts: saved.network_approved, requested_hosts: row.network_requested },
      });
      return saved;
    });
    this.deps.logger.info({ serverId: id, approvedHosts: updated.network_approved.length }, 'server network list set');
    this.deps.announce?.(id);
    if (updated.enabled) await this.deps.sync.connect(updated);
    return this.view(updated);
  }

  /**
   * Records the hosts a sandboxed server asks for (a generated server's design) as a pending request
   * for an admin to answer; the server gets no network from it.
   */
  async requestNetwork(id: string, hosts: readonly string[], reason: string): Promise<void> {
    await this.deps.tx.transaction(async (stores) => {
      const row = await stores.servers.findByIdForUpdate(id);
      if (!row) throw new NotFoundError('No such server', 'server_not_found');
      const requested = [...new Set(hosts.map((h) => h.trim()).filter(Boolean))].slice(0, 50);
      await stores.servers.update(id, { network_requested: requested });
      await this.deps.activity.record(stores, {
        action: 'server.network_request',
        target: { type: 'server', id, name: row.name },
        details: { requested_hosts: requested, reason },
      });
    });
    this.deps.announce?.(id);
  }

  /** What the schema cannot check of a server's URL and headers (server-connection-fields.ts); none when they are fine. */
  checkConnectionFields(input: { url?: string | null; headers?: Record<string, string | null> }): ValidationIssue[] {
    return connectionFieldIssues(this.deps.outboundPolicy, input);
  }

  /** Seals a map of secret values (`secret_env`, `headers`) as a server row stores it; null when empty. */
  seal(values: Record<string, string>): string | null {
    return Object.keys(values).length ? this.deps.secrets.seal(JSON.stringify(values)) : null;
  }

  /** Tells the vault a server's OAuth client changed (its connections were made with the former one). */
  async oauthSettingsChanged(id: string): Promise<void> {
    await this.deps.oauthChanged?.(id);
  }

  /** Opens a sealed map of secret values of a server row (for the configuration import only; never returned). */
  open(sealed: string | null): Record<string, string> {
    return sealed ? (JSON.parse(this.deps.secrets.open(sealed)) as Record<string, string>) : {};
  }
}

/** The unredacted view, for the gateway's own use and for admin-only operations. */
export const ADMIN_VIEW = { role: 'admin' } as const;

/**
 * A server as a caller of `role` may see it. Members see what a server is and how it is doing,
 * never how it is launched or reached: command, arguments, environment (names included), working
 * directory, header names and the URL's query and fragment are withheld, as they often carry
 * credentials, internal hosts or paths. Admins and owners see everything but secret values.
 */
export function redactedFor(caller: { role: Role }, view: ServerView): ServerView {
  if (roleAtLeast(caller.role, 'admin')) return view;
  return {
    ...view,
    command: null,
    args: [],
    env: {},
    secret_env_keys: [],
    cwd: null,
    url: view.url === null ? null : withoutQuery(view.url),
    header_names: [],
    network: { approved_hosts: [], requested_hosts: null },
    oauth: null,
    redacted: true,
  };
}

/** A URL without its query, fragment and credentials (unparseable: withheld entirely). */
function withoutQuery(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}
