import { randomUUID } from 'node:crypto';
import type { CatalogTool } from '../../domain/catalog.js';
import { isFeatureList, type ClientFeature } from '../../domain/client-features.js';
import { BUILTIN_SERVER_DEFAULTS, type ServerDefaults } from '../../domain/server-defaults.js';
import { stdioLaunchAllowed } from '../../domain/stdio-commands.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Logger } from '../../logger.js';
import type { CatalogStore, DbPromptRow, DbResourceRow, DbToolRow } from '../../stores/catalog-store.js';
import type { DbServerRow, ServersStore } from '../../stores/servers-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { UpstreamEvents, UpstreamServerSpec, UpstreamState } from '../../upstream/upstream-connection.js';
import type { UpstreamPool } from '../../upstream/upstream-pool.js';
import { asObjectSchema, dedupeTools, promptUpsert, resourceUpserts, sameFeatures, toolUpsert } from './listing-rows.js';
import type { InMemoryCatalog, ServerCatalogEntry } from '../../live/in-memory-catalog.js';

const SYNC_DEBOUNCE_MS = 50;
/** Attempts of a scheduled sync that fails while the upstream stays connected, and the base delay between them. */
const SYNC_ATTEMPTS = 3;
const SYNC_RETRY_MS = 1000;

/** A server's connection state as shown to admins (live where the pool knows it, else last recorded). */
export interface ServerStatusView {
  status: 'connecting' | 'connected' | 'error' | 'disabled' | 'needs_authorization';
  lastError: string | null;
  lastConnectedAt: Date | null;
  protocolVersion: string | null;
  serverInfo: Record<string, unknown> | null;
  latencyMs: number | null;
  toolCount: number;
  resourceCount: number;
  promptCount: number;
}

/** How sandboxed stdio servers are started (src/sandbox/server-sandbox.ts). */
export interface ServerJail {
  launch(server: {
    id: string;
    command: string;
    args: readonly string[];
    env: Readonly<Record<string, string>>;
    cwd: string | null;
    approvedHosts: readonly string[];
  }): Promise<{ command: string; args: string[]; env: Record<string, string>; cwd: string }>;
  /** The server stopped for good (disabled or deleted): its egress socket closes. */
  forget(serverId: string): Promise<void>;
}

/**
 * Catalog sync and health: keeps the shared upstream pool connected to every enabled server, reads
 * each upstream's lists into the database and into the in-memory catalog the hot path reads (on
 * connect, on `list_changed`, on refresh), and records connection health. It is the pool's event
 * listener. The registry (`ServersService`) tells it when a server is saved, enabled or removed.
 */
/** What catalog sync asks of the vault: a credential for sync and health, and to drop one the upstream refused. */
type VaultCredentials = {
  discoveryCredential(serverId: string): Promise<string | undefined>;
  discoveryRefused?(serverId: string, accessToken: string): Promise<void>;
};

export class CatalogSync implements UpstreamEvents {
  private readonly syncs = new Map<string, { running: Promise<void>; again: boolean }>();
  private readonly syncTimers = new Map<string, NodeJS.Timeout>();
  private readonly pendingWrites = new Set<Promise<unknown>>();
  /**
   * Servers connected but not yet synced since: they report `connecting` until their catalog is
   * stored, so "connected" always means the tools are listed (a client that waits for it and then
   * reads the catalog never sees an empty one).
   */
  private readonly awaitingSync = new Set<string>();
  private closing = false;
  /** The capability probe running (or queued) per server, after its last sync. */
  private readonly probes = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: {
      tx: Transactor;
      servers: ServersStore;
      catalogStore: CatalogStore;
      catalog: InMemoryCatalog;
      pool: UpstreamPool;
      secrets: SecretBox;
      logger: Logger;
      /** Longest a connect + initialize may take; also the default budget of one sync. */
      connectTimeoutMs: number;
      /** The values servers without their own follow (general settings, in memory); built-in values when absent. */
      serverDefaults?: () => ServerDefaults;
      /** The commands stdio servers may run (`TOOLGATE_STDIO_COMMANDS`; empty: any), and where generated servers live. */
      stdioCommands?: readonly string[];
      generatedRoot?: string;
      /**
       * How a stdio server whose command is Toolgate-internal starts (the OpenAPI bridge); undefined
       * for any other server, which starts as registered.
       */
      launcher?: (row: DbServerRow, connection: UpstreamServerSpec['connection']) => Promise<UpstreamServerSpec['connection'] | undefined>;
      /** How `sandboxed` stdio servers start (the jail with its egress proxy); without it they do not start. */
      sandbox?: ServerJail;
    },
  ) {
    deps.pool.listen(this);
  }

  /**
   * OAuth servers with no usable credential for catalog sync and health (no shared credential, no
   * user connection): not connected, shown as `needs_authorization` rather than as an error.
   */
  private readonly unauthorized = new Set<string>();
  /** OAuth servers whose credential is being re-read after their connection failed (one at a time). */
  private readonly reauthorizing = new Set<string>();
  /** Where an OAuth server's credential for sync and health comes from (the vault); set once it is built. */
  private credentials: VaultCredentials | undefined;
  /** The token each OAuth server's shared connection carries (to tell the vault which one was refused). */
  private readonly discoveryTokens = new Map<string, string>();

  /** Names the vault, which gives OAuth servers their credential for sync and health. */
  useCredentials(credentials: VaultCredentials): void {
    this.credentials = credentials;
  }

  /** A connection to an OAuth server was stored: connect it if it waited for one (or take the new token). */
  async authorized(serverId: string, revoked = false): Promise<void> {
    // A connected server keeps its connection (replacing it would hide its tools meanwhile); it
    // takes the newer credential when that connection fails. A revoked connection's token is
    // dropped at once (the connection is replaced if it carried it).
    if (!revoked && this.deps.pool.state(serverId)?.status === 'connected') return;
    const row = await this.deps.servers.findById(serverId);
    if (row?.enabled) await this.connect(row);
  }

  /**
   * The spec of an OAuth server's shared connection (catalog sync and health): the shared
   * credential, else the most recently refreshed user connection — used for listing and probing
   * only; calls carry their own user's token. Undefined when there is none.
   */
  private async oauthSpec(row: DbServerRow, spec: UpstreamServerSpec): Promise<UpstreamServerSpec | undefined> {
    if (spec.connection.transport === 'stdio' || row.auth_mode === 'none') return spec;
    const token = await this.credentials?.discoveryCredential(row.id).catch((err: unknown) => {
      this.deps.logger.warn(
        { serverId: row.id, reason: err instanceof Error ? err.message : String(err) },
        'upstream OAuth credential unavailable',
      );
      return undefined;
    });
    if (token === undefined) return undefined;
    this.discoveryTokens.set(row.id, token);
    return {
      ...spec,
      // A token-exchange server is per user on the call path: each call carries its own user's token.
      auth: row.auth_mode === 'oauth_shared' ? 'oauth_shared' : 'oauth_per_user',
      connection: { ...spec.connection, headers: { ...spec.connection.headers, Authorization: `Bearer ${token}` } },
    };
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
        for (const row of await this.deps.servers.all()) if (row.enabled) await this.connect(row);
      } catch (err) {
        this.deps.logger.error({ err }, 'could not start upstream connections');
      }
    })();
  }

  /** Closes the pool (every stdio process ends) and waits for pending health writes and syncs. */
  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.syncTimers.values()) clearTimeout(t);
    this.syncTimers.clear();
    await this.deps.pool.close();
    await Promise.allSettled([...this.pendingWrites, ...[...this.syncs.values()].map((s) => s.running), ...this.probes.values()]);
  }

  // ---------------------------------------------------------------- what the registry tells it

  /** A new server is in the registry: it enters the in-memory catalog, with empty lists until its first sync. */
  registered(row: DbServerRow): void {
    this.deps.catalog.putServer(row.id, this.entry(row, [], [], []));
  }

  /** Connects (or reconnects, when its connection changed) a saved, enabled server. */
  async connect(row: DbServerRow): Promise<void> {
    if (row.auth_mode !== 'none' && row.transport !== 'stdio') {
      const spec = await this.oauthSpec(row, this.spec(row));
      if (!spec) {
        this.unauthorized.add(row.id);
        await this.deps.pool.remove(row.id);
        return;
      }
      this.unauthorized.delete(row.id);
      await this.deps.pool.upsert(spec);
      return;
    }
    this.unauthorized.delete(row.id);
    const spec = this.spec(row);
    // A stdio server whose command is a Toolgate-internal one (the OpenAPI bridge) is started as
    // its launcher says; every other server as registered, if its command may run here.
    let launched = row.transport === 'stdio' ? await this.deps.launcher?.(row, spec.connection) : undefined;
    const command = row.command ?? '';
    if (
      !launched &&
      row.transport === 'stdio' &&
      !stdioLaunchAllowed(command, row.cwd, this.deps.stdioCommands ?? [], this.deps.generatedRoot)
    ) {
      // Registered before the list was set: it is not started, and says why.
      return this.notStarted(row, 'not started: its command is not on TOOLGATE_STDIO_COMMANDS');
    }
    if (!launched && row.sandboxed && spec.connection.transport === 'stdio') {
      // Nothing marked sandboxed ever runs outside the jail.
      const { sandbox } = this.deps;
      if (!sandbox) return this.notStarted(row, 'not started: this instance has no sandbox for sandboxed servers');
      try {
        const jailed = await sandbox.launch({
          id: row.id,
          command,
          args: row.args,
          env: spec.connection.env,
          cwd: row.cwd,
          approvedHosts: row.network_approved,
        });
        launched = { transport: 'stdio', command: jailed.command, args: jailed.args, env: jailed.env, cwd: jailed.cwd, exactEnv: true };
      } catch (err) {
        return this.notStarted(row, `not started: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    await this.deps.pool.upsert(launched ? { ...spec, connection: launched } : spec);
  }

  /** A server that may not start here: it is stopped and its last error says why. */
  private async notStarted(row: DbServerRow, reason: string): Promise<void> {
    await this.deps.pool.remove(row.id);
    this.deps.logger.warn({ serverId: row.id }, `stdio server ${reason}`);
    await this.deps.servers.recordHealth(row.id, { last_error: reason }).catch(() => undefined);
  }

  /**
   * The general settings servers follow changed: every enabled server without its own call timeout
   * or health-check interval takes the new value (a new call timeout applies to the next call; a new
   * interval reconnects the server).
   */
  async applyServerDefaults(): Promise<void> {
    for (const row of await this.deps.servers.all()) {
      if (!row.enabled || !this.deps.pool.has(row.id)) continue;
      if (row.call_timeout_ms === null || row.health_check_interval_seconds === null) await this.connect(row);
    }
  }

  /** Disconnects a disabled or deleted server (its stdio process ends). */
  async disconnect(serverId: string): Promise<void> {
    this.awaitingSync.delete(serverId);
    this.unauthorized.delete(serverId);
    await this.deps.pool.remove(serverId);
    await this.deps.sandbox?.forget(serverId);
  }

  /** Reconnects when needed and re-reads the server's lists within `timeoutMs`; never throws for upstream trouble. */
  async refresh(row: DbServerRow): Promise<void> {
    if (!this.deps.pool.has(row.id)) await this.connect(row);
    if (this.deps.pool.state(row.id)?.status === 'error') this.deps.pool.reconnect(row.id, 'refresh requested');
    await this.sync(row.id, this.deps.connectTimeoutMs + this.spec(row).callTimeoutMs).catch(() => undefined);
  }

  /** Connection state and catalog counts of a server, live where known. */
  status(row: DbServerRow): ServerStatusView {
    const live = row.enabled ? this.deps.pool.state(row.id) : undefined;
    const connected = live?.status === 'connected';
    const { catalog } = this.deps;
    const liveStatus = connected && this.awaitingSync.has(row.id) ? 'connecting' : live?.status;
    const waiting = row.enabled && !live && this.unauthorized.has(row.id);
    return {
      status: !row.enabled ? 'disabled' : waiting ? 'needs_authorization' : (liveStatus ?? 'connecting'),
      lastError: live ? live.lastError : row.enabled ? row.last_error : null,
      lastConnectedAt: live?.lastConnectedAt ?? row.last_connected_at,
      protocolVersion: live?.protocolVersion ?? row.protocol_version,
      serverInfo: (live?.serverInfo as Record<string, unknown> | null | undefined) ?? row.server_info,
      latencyMs: connected ? (live?.latencyMs ?? row.latency_ms) : row.latency_ms,
      toolCount: catalog.toolsOfServer(row.id).length,
      resourceCount: catalog.resourcesOfServer(row.id).length + catalog.resourceTemplatesOfServer(row.id).length,
      promptCount: catalog.promptsOfServer(row.id).length,
    };
  }

  /** Whether the server is enabled and connected right now (from memory). */
  isConnected(serverId: string): boolean {
    return this.deps.pool.state(serverId)?.status === 'connected';
  }

  // ---------------------------------------------------------------- pool events

  onConnected(serverId: string): void {
    if (!this.closing) this.awaitingSync.add(serverId);
    this.scheduleSync(serverId, 0);
  }

  onListChanged(serverId: string, kind: 'tools' | 'resources' | 'prompts'): void {
    this.deps.logger.info({ serverId, kind }, 'upstream list changed');
    this.scheduleSync(serverId, SYNC_DEBOUNCE_MS);
  }

  /** Health: mirrors connectivity into the catalog and records it in the server row (off the request path). */
  onStateChange(serverId: string, state: UpstreamState): void {
    // An OAuth server's connection failed: the vault refreshes the token or names another connection
    // (after a 401, revoked or another authorization server, it first stops offering the refused one),
    // and the connection is replaced if the token changed.
    if (state.status === 'error' && this.deps.pool.isOAuth(serverId))
      this.reauthorize(serverId, /\(HTTP 401\)/.test(state.lastError ?? ''));
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

  private reauthorize(serverId: string, refused: boolean): void {
    if (this.closing || this.reauthorizing.has(serverId)) return;
    this.reauthorizing.add(serverId);
    const token = refused ? this.discoveryTokens.get(serverId) : undefined;
    void Promise.resolve(token === undefined ? undefined : this.credentials?.discoveryRefused?.(serverId, token))
      .then(() => this.authorized(serverId))
      .catch((err: unknown) => this.deps.logger.debug({ serverId, err: String(err) }, 'could not re-read the OAuth credential'))
      .finally(() => this.reauthorizing.delete(serverId));
  }

  // ---------------------------------------------------------------- sync

  /** Syncs soon (coalescing bursts of list_changed notifications). */
  private scheduleSync(serverId: string, delayMs: number, attempt = 1): void {
    if (this.closing) return;
    clearTimeout(this.syncTimers.get(serverId));
    const timer = setTimeout(() => {
      this.syncTimers.delete(serverId);
      const awaiting = this.awaitingSync.has(serverId);
      this.sync(serverId).catch((err) => {
        const retry = attempt < SYNC_ATTEMPTS && this.isConnected(serverId);
        this.deps.logger.warn(
          { serverId, attempt, retry, reason: err instanceof Error ? err.message : String(err) },
          'catalog sync failed',
        );
        // A connected upstream whose lists could not be stored (a database hiccup, a timeout) is
        // tried again a few times, later each time, rather than left with a stale catalog.
        if (!retry) return;
        // Still `connecting` to admins until a retry stores the catalog (or the last one fails).
        if (awaiting) this.awaitingSync.add(serverId);
        this.scheduleSync(serverId, SYNC_RETRY_MS * attempt, attempt + 1);
      });
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
        // Synced, or the sync failed (the failure is logged): either way the server is no longer waiting.
        this.awaitingSync.delete(serverId);
      }
    })();
    this.syncs.set(serverId, slot);
    return slot.running;
  }

  private async syncOnce(serverId: string, timeoutMs?: number): Promise<void> {
    if (this.closing || !this.deps.pool.has(serverId)) return;
    const listing = await this.deps.pool.list(serverId, { timeoutMs: timeoutMs ?? this.deps.connectTimeoutMs });
    if (this.closing) return;
    const tools = dedupeTools(listing.tools);
    // What each tool needs a client to declare: as known so far (a new tool: nothing), until the
    // probe after the sync says otherwise.
    const needs = new Map(this.deps.catalog.toolsOfServer(serverId).map((t) => [t.name, t.clientCapabilities ?? null]));
    await this.deps.tx.transaction(async ({ catalog: store, servers }) => {
      // A server that accepts changes pins each new definition at once; otherwise a changed one waits for approval.
      const accept = (await servers.findById(serverId))?.tool_changes === 'accept';
      await store.syncTools(
        serverId,
        tools.map((t) => ({ ...toolUpsert(t), client_capabilities: needs.get(t.name) ?? null })),
        randomUUID,
        accept,
      );
      await store.syncResources(serverId, resourceUpserts(listing), randomUUID);
      await store.syncPrompts(serverId, listing.prompts.filter((p) => !p.name.includes('\0')).map(promptUpsert), randomUUID);
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
    this.probeNeeds(
      serverId,
      tools.map((t) => t.name),
      timeoutMs,
    );
  }

  /**
   * Finds out, after a sync, which of the server's tools the upstream lists only to clients that
   * declare sampling, elicitation or roots (src/upstream/capability-probe.ts: short-lived
   * connections of their own, started only when the tool names changed), and stores it when it
   * differs from what the catalog holds. Off the sync's path, so a new tool is served at once;
   * one probe per server at a time. A probe that fails is logged and changes nothing.
   */
  private probeNeeds(serverId: string, names: readonly string[], timeoutMs?: number): void {
    const previous = this.probes.get(serverId) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (this.closing || !this.deps.pool.has(serverId)) return;
      let needs: ReadonlyMap<string, ClientFeature[]>;
      try {
        needs = await this.deps.pool.toolNeeds(serverId, names, { timeoutMs: timeoutMs ?? this.deps.connectTimeoutMs });
      } catch (err) {
        if (!this.closing)
          this.deps.logger.warn(
            { serverId, reason: err instanceof Error ? err.message : String(err) },
            'could not tell which tools need client capabilities',
          );
        return;
      }
      if (this.closing) return;
      const stored = new Map(this.deps.catalog.toolsOfServer(serverId).map((t) => [t.name, t.clientCapabilities]));
      const changed = names.filter((name) => stored.has(name) && !sameFeatures(stored.get(name), needs.get(name)));
      if (changed.length === 0) return;
      await this.deps.catalogStore.setClientCapabilities(serverId, changed, needs);
      await this.reloadCatalog(serverId);
    });
    const settled = next.catch((err) => this.deps.logger.warn({ serverId, err }, 'could not store which tools need client capabilities'));
    this.probes.set(serverId, settled);
    void settled.finally(() => {
      if (this.probes.get(serverId) === settled) this.probes.delete(serverId);
    });
  }

  /**
   * Applies a change another instance made to a server (announced on the change bus): connects,
   * reconnects or disconnects this instance's upstream connection as the saved row says, and
   * rebuilds the server's catalog entry from the database.
   */
  async applyRemoteChange(serverId: string): Promise<void> {
    const row = await this.deps.servers.findById(serverId);
    if (!row) {
      await this.disconnect(serverId);
      this.deps.catalog.removeServer(serverId);
      return;
    }
    if (row.enabled) await this.connect(row);
    else await this.disconnect(serverId);
    await this.reloadCatalog(serverId);
  }

  /** Rebuilds the in-memory entry of one server from the database (removes it when the server is gone). */
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
        execution: t.execution ?? null,
        ...(isFeatureList(t.client_capabilities) && t.client_capabilities.length > 0 ? { clientCapabilities: t.client_capabilities } : {}),
        enabled: t.enabled,
        // Offered at the last sync and on an enabled server; live connection is serverState().connected.
        available: t.available && row.enabled,
        ...(t.skill_attachment_id ? { script: true } : {}),
        // Changed upstream since it was approved: withheld until an admin approves the change.
        ...(t.pinned_hash !== null && t.definition_hash !== null && t.pinned_hash !== t.definition_hash ? { held: true } : {}),
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

  private open(sealed: string | null): Record<string, string> {
    return sealed ? (JSON.parse(this.deps.secrets.open(sealed)) as Record<string, string>) : {};
  }

  /** The pool's view of a server: its connection with secrets opened. */
  private spec(row: DbServerRow): UpstreamServerSpec {
    const defaults = this.deps.serverDefaults?.() ?? BUILTIN_SERVER_DEFAULTS;
    const base = {
      id: row.id,
      name: row.name,
      callTimeoutMs: row.call_timeout_ms ?? defaults.callTimeoutMs,
      healthCheckIntervalMs: (row.health_check_interval_seconds ?? defaults.healthCheckIntervalSeconds) * 1000,
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
