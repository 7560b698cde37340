/**
 * The composition root: the one place where the process's services are built and wired (stores,
 * live state, services, the upstream pool, telemetry, the change bus) and torn down in order; the
 * MCP endpoints built on them are compose-mcp.ts's. It holds no rules of its own — each line
 * constructs or connects a part defined elsewhere, and what happens when something changes lives
 * in the module that owns it — so its length grows with the number of parts. It stays one file
 * above the house's 600 lines on purpose: every dependency of every part, and the start and stop
 * order, can be read in one place, top to bottom, in the order things are built
 * (docs/architecture.md).
 */
import path from 'node:path';
import type { Config } from './config.js';
import type { UpstreamCaller } from './domain/upstream-call.js';
import { systemClock, type Clock } from './lib/clock.js';
import { Metrics } from './lib/metrics.js';
import { OutboundPolicy } from './lib/outbound-policy.js';
import { deriveKey, loadMasterKey, SecretBox } from './lib/secret-box.js';
import type { Logger } from './logger.js';
import { CallRecorder, type CallRecorderOptions } from './mcp/call-recorder.js';
import { AiProvidersService } from './services/generation/ai-providers-service.js';
import { ActivityLog } from './services/operations/activity-log.js';
import { EgressProxy } from './sandbox/egress-proxy.js';
import { ServerSandbox } from './sandbox/server-sandbox.js';
import { SandboxRunner } from './sandbox/sandbox-runner.js';
import { ApiKeyAuthenticator } from './services/identity/api-key-authenticator.js';
import { ApiKeysService } from './services/identity/api-keys-service.js';
import { AuthSettingsService } from './services/identity/auth-settings-service.js';
import { BundlesRegistry } from './live/bundles-registry.js';
import { TeamMemberships } from './live/team-memberships.js';
import { TeamsService } from './services/teams/teams-service.js';
import { ToolPolicy } from './live/tool-policy.js';
import { PolicyService } from './services/policy/policy-service.js';
import { Guardrails } from './live/guardrails.js';
import { GuardrailsService } from './services/guardrails/guardrails-service.js';
import { Replication } from './live/replication.js';
import { BundlesService } from './services/bundles/bundles-service.js';
import { RegistryApiService } from './services/bundles/registry-api-service.js';
import { ConfigDocumentService } from './services/operations/config-document-service.js';
import { OpenApiServersService } from './services/catalog/openapi-servers.js';
import { RegistryImportService } from './services/catalog/registry-import.js';
import { CatalogService } from './services/catalog/catalog-service.js';
import { CatalogSync } from './services/catalog/catalog-sync.js';
import { LocalChangeBus, RedisChangeBus, type ChangeBus } from './redis/change-bus.js';
import { DashboardService } from './services/operations/dashboard-service.js';
import { GatewaySettingsService } from './services/bundles/gateway-settings-service.js';
import { GenerationService, type GenerationServiceOptions } from './services/generation/generation-service.js';
import {
  GeneralSettingsService,
  generalSettingsDefaults,
  type EffectiveGeneralSettings,
} from './services/operations/general-settings-service.js';
import { InMemoryCatalog } from './live/in-memory-catalog.js';
import { InvitationsService } from './services/identity/invitations-service.js';
import { KeySessionService } from './services/identity/key-session-service.js';
import { OAuthLoginService } from './services/identity/oauth-login-service.js';
import { OAuthProvidersService } from './services/identity/oauth-providers-service.js';
import { OAuthClientDirectory } from './services/identity/oauth-client-directory.js';
import { OAuthServerService } from './services/identity/oauth-server-service.js';
import { OAuthClientRegistration } from './services/identity/oauth-client-registration.js';
import { ConnectedApps } from './services/identity/connected-apps.js';
import { RateLimiter } from './redis/rate-limiter.js';
import { RetentionService } from './services/operations/retention-service.js';
import { UpstreamConnectionsService } from './services/catalog/upstream-connections-service.js';
import { ToolgateIssuerKeys } from './services/catalog/toolgate-issuer-keys.js';
import { UpstreamOAuthClient } from './upstream/upstream-oauth.js';
import { ADMIN_VIEW, ServersService } from './services/catalog/servers-service.js';
import { SessionsService } from './services/identity/sessions-service.js';
import { ScriptToolRegistry, ScriptToolRouter } from './services/skills/script-tools.js';
import { registryGithubToken, SkillCatalogs } from './services/skills/skill-catalogs.js';
import { SkillToolsService } from './services/skills/skill-tools-service.js';
import { SkillGenerator } from './services/skills/skill-generator.js';
import { SkillsService } from './services/skills/skills-service.js';
import { UsersService } from './services/identity/users-service.js';
import { migrateToLatest, openDatabase, type Database } from './stores/database.js';
import { RetentionStore } from './stores/retention-store.js';
import { AuditExportStore } from './stores/audit-export-store.js';
import { AuditExporter } from './telemetry/audit-export.js';
import { JsonLinesFileSink, OtlpLogSink, WebhookSink, type AuditSink } from './telemetry/audit-sinks.js';
import { createStores, Transactor, type Stores } from './stores/transactor.js';
import { UpstreamPool } from './upstream/upstream-pool.js';
import type { UpstreamServerSpec } from './upstream/upstream-connection.js';

export const VERSION = '0.1.0';

/**
 * Every store and service of one process, built on one database by `openServices` (the only place
 * that constructs them). Services receive what they need; none builds another's parts.
 */
export interface Services {
  readonly db: Database;
  /** Every store on the pool; services that write several rows use `tx` instead. */
  readonly stores: Stores;
  /** Runs work in one transaction with stores bound to it. */
  readonly tx: Transactor;
  /** Seals and opens every secret stored at rest. */
  readonly secrets: SecretBox;
  /** Signs the `requestState` of MCP input-required results (derived from the master key). */
  readonly requestStateKey: Buffer;
  /** The SSRF guard for every URL fetched on an admin's say-so (OAuth, upstream servers, AI providers). */
  readonly outboundPolicy: OutboundPolicy;
  /** Change notifications between instances (Redis pub/sub) or within this one. */
  readonly bus: ChangeBus;
  readonly rateLimiter: RateLimiter;
  /** Prometheus metrics of this process (`GET /metrics`). */
  readonly metrics: Metrics;

  // Identity and access.
  readonly users: UsersService;
  /** API key lifecycle (create, list, update, revoke, rotate). */
  readonly apiKeys: ApiKeysService;
  /** The hot-path credential check of API keys (cached). */
  readonly apiKeyAuth: ApiKeyAuthenticator;
  readonly sessions: SessionsService;
  /** Console sign-in: an API key exchanged for a browser session. */
  readonly keySessions: KeySessionService;
  readonly authSettings: AuthSettingsService;
  readonly oauthProviders: OAuthProvidersService;
  readonly oauthLogin: OAuthLoginService;
  /** Toolgate as the OAuth authorization server of /mcp/gateway (MCP clients connecting by OAuth). */
  readonly oauthServer: OAuthServerService;
  /** Dynamic client registration (RFC 7591) at that authorization server. */
  readonly oauthRegistration: OAuthClientRegistration;
  /** The connections people approved and the registered clients, as the console manages them. */
  readonly connectedApps: ConnectedApps;
  readonly invitations: InvitationsService;
  readonly gatewaySettings: GatewaySettingsService;
  /** Teams, their members and OAuth group mappings. */
  readonly teams: TeamsService;
  /** Which teams each user is in, in memory (the gateway decides shared bundles from it). */
  readonly teamMemberships: TeamMemberships;
  /** The tool policy in memory, as the MCP routes decide from it. */
  readonly toolPolicy: ToolPolicy;
  /** The tool policy rules (REST). */
  readonly policy: PolicyService;
  /** The guardrails in memory (redaction settings, interceptors), as the MCP routes apply them. */
  readonly liveGuardrails: Guardrails;
  /** Guardrail settings and interceptors (REST). */
  readonly guardrails: GuardrailsService;

  // The upstream side.
  /** The tool catalog the hot path reads (memory); written by the catalog sync. */
  readonly catalog: InMemoryCatalog;
  /** The shared upstream pool (one MCP client per registered, enabled server). */
  readonly pool: UpstreamPool;
  /**
   * How the MCP endpoints call upstreams: the pool, or a caller supplied in the options, with
   * calls of script tools routed to the sandbox.
   */
  readonly upstreams: UpstreamCaller;
  /** Catalog sync and health: the pool's listener. */
  readonly catalogSync: CatalogSync;
  /** The upstream server registry (CRUD). */
  readonly servers: ServersService;
  /** The stored catalog as admins see it, and tool selection. */
  readonly catalogService: CatalogService;
  /** Upstream servers behind OAuth: Connect, the token vault, the credential each call carries. */
  readonly upstreamConnections: UpstreamConnectionsService;
  /** Toolgate's signing keys (token-exchange subject tokens, its JWKS). */
  readonly issuerKeys: ToolgateIssuerKeys;

  // The downstream side.
  /** Every bundle in memory (by id and key hash), for the MCP hot path. */
  readonly bundleRegistry: BundlesRegistry;
  readonly bundles: BundlesService;
  /** The MCP Registry API (`/v0.1/servers`): the caller's bundles as `server.json` entries. */
  readonly registryApi: RegistryApiService;
  /** Configuration as code: export to and import from YAML documents. */
  readonly configDocuments: ConfigDocumentService;
  /** REST APIs registered from their OpenAPI documents (served by the OpenAPI bridge). */
  readonly openApiServers: OpenApiServersService;
  /** Browsing an MCP registry and adding its servers. */
  readonly registryImport: RegistryImportService;
  /** Writes call records in batches, off the request path. */
  readonly callRecorder: CallRecorder;

  // AI: providers and server generation.
  /** AI provider configurations; `llm()` / `embedder()` give the clients generation, skills and search use. */
  readonly aiProviders: AiProvidersService;
  /** Server generation jobs: the API and the scheduler that runs them (started by `start`). */
  readonly generation: GenerationService;

  // Operations.
  /** The admin activity log: services record their changes in it (`record(stores, entry)`). */
  readonly activityLog: ActivityLog;
  /** Dashboard statistics, health, activity feed and charts (from the call rollups). */
  readonly dashboard: DashboardService;
  /** General settings, in force in memory and applied at run time (`onChange`). */
  readonly generalSettings: GeneralSettingsService;
  /** The retention purge of call records and activity entries (started by `start`). */
  readonly retention: RetentionService;
  /** The continuous export of audit events to the configured sinks (started by `start`; none configured: idle). */
  readonly auditExport: AuditExporter;

  // Agent Skills.
  /** The skill library: CRUD, search, catalog import. */
  readonly skills: SkillsService;
  /** External catalogs (GitHub repositories, catalog indexes). */
  readonly skillCatalogs: SkillCatalogs;
  /** Skills attached to servers: their workflow's script tools. */
  readonly skillTools: SkillToolsService;
  /** Streamed AI generation of skills (the LLM of the AI providers, saved through `skills`). */
  readonly skillGenerator: SkillGenerator;
  /** Runs script tools: QuickJS workers for JavaScript, bubblewrap for Python and shell. */
  readonly sandbox: SandboxRunner;

  /** Starts background work: key-usage flushes, session purges, the retention purge, detecting the process sandbox. */
  start(): void;
  /** Stops background work, writes what is buffered, closes the pool, the bus and the database. */
  close(): Promise<void>;
}

/** Optional parts a caller may supply (tests, benchmarks). */
export interface ServiceOptions {
  /** Replaces the upstream pool as the MCP endpoints' way to call tools (benchmarks, fault tests). */
  upstreams?: UpstreamCaller;
  callRecorder?: CallRecorderOptions;
  /** Generation tunables (tests shorten time-outs and polling). */
  generation?: Partial<GenerationServiceOptions>;
  /** How often API-key last-use data is written (default 5 s; tests that count the writes lengthen it). */
  keyUsageFlushMs?: number;
}

/**
 * Opens and migrates the database, then builds every store and service on it and loads what the
 * hot path keeps in memory (bundles, catalog). No HTTP, no MCP endpoints: the CLI uses this.
 */
export async function openServices(
  config: Config,
  logger: Logger,
  clock: Clock = systemClock,
  options: ServiceOptions = {},
): Promise<Services> {
  const masterKey = loadMasterKey(config.secretKey, config.dataDir);
  if (config.redisUrl && config.databaseUrl && !config.secretKey)
    // Several instances on one database must seal and open secrets (and sign console sessions) with one key.
    logger.warn(
      'REDIS_URL and DATABASE_URL are set (several instances?) but TOOLGATE_SECRET_KEY is not: each instance uses the key file of its own data directory; give every instance the same TOOLGATE_SECRET_KEY',
    );
  const db = openDatabase(config, logger, { acquireTimeoutMs: config.dbAcquireTimeoutMs, statementTimeoutMs: config.dbStatementTimeoutMs });
  let services: Services | undefined;
  try {
    await migrateToLatest(db, logger, { schema: config.databaseSchema, connectTimeoutMs: config.dbConnectTimeoutMs });
    services = buildServices({ config, logger, clock, db, masterKey, options });
    await services.generalSettings.load();
    await services.bundles.loadRegistry();
    await services.teams.reload();
    await services.policy.reload();
    await services.guardrails.reload();
    await services.catalogSync.loadCatalog();
    await services.skillTools.load();
    return services;
  } catch (err) {
    if (services) await services.close().catch(() => undefined);
    else await db.close().catch(() => undefined);
    throw err;
  }
}

/** Builds the object graph (no I/O but what constructors start, e.g. a Redis connection). */
function buildServices(input: {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Database;
  masterKey: Buffer;
  options: ServiceOptions;
}): Services {
  const { config, logger, clock, db, masterKey, options } = input;
  const stores = createStores(db.knex);
  const tx = new Transactor(db.knex);
  const secrets = new SecretBox(masterKey);
  const outboundPolicy = new OutboundPolicy(config.outboundAllowlist);
  const bus: ChangeBus = config.redisUrl ? new RedisChangeBus(config.redisUrl, logger) : new LocalChangeBus();
  const metrics = new Metrics();
  const rateLimiter = new RateLimiter({ redisUrl: config.redisUrl, logger, onReject: (subject) => metrics.rateLimited(subject) });

  // General settings come first: much of the rest reads them at run time.
  const activityLog = new ActivityLog(stores.activity, clock);
  const generalSettings = new GeneralSettingsService({
    store: stores.generalSettings,
    tx,
    secrets,
    clock,
    bus,
    activity: activityLog,
    defaults: generalSettingsDefaults(config),
    logger,
  });
  const defaultRateLimitRpm = (): number => generalSettings.current.default_rate_limit_rpm;
  const applySettings = (s: EffectiveGeneralSettings): void => outboundPolicy.setAllowlist(s.outbound_allowlist);
  applySettings(generalSettings.current);
  generalSettings.onChange(applySettings);

  const authSettings = new AuthSettingsService(stores.authSettings, clock, bus, tx, activityLog);
  const keyConfig = {
    keyPrefix: config.keyPrefix,
    get defaultRateLimitRpm() {
      return defaultRateLimitRpm();
    },
  };
  const apiKeyAuth = new ApiKeyAuthenticator({
    store: stores.apiKeys,
    config: keyConfig,
    clock,
    bus,
    logger,
    usageFlushMs: options.keyUsageFlushMs,
  });
  const apiKeys = new ApiKeysService({
    tx,
    store: stores.apiKeys,
    authenticator: apiKeyAuth,
    authSettings,
    config,
    clock,
    activity: activityLog,
  });
  const sessions = new SessionsService(
    stores.sessions,
    deriveKey(masterKey, 'session-token-v1'),
    clock,
    authSettings,
    bus,
    defaultRateLimitRpm,
  );
  const onUserChange = (userId: string): void => apiKeyAuth.invalidateUser(userId);
  const users = new UsersService(tx, stores.users, clock, onUserChange, activityLog, apiKeys);
  const keySessions = new KeySessionService(apiKeyAuth, apiKeys, sessions, users);
  const oauthProviders = new OAuthProvidersService(stores.oauthProviders, secrets, clock, tx, activityLog, outboundPolicy);
  const invitations = new InvitationsService(stores.invitations, stores.users, oauthProviders, clock, tx, activityLog);
  const teamMemberships = new TeamMemberships();
  // Built before the bundles service (sign-in needs it); reaches it only through this closure.
  let republishBundles: (ids: readonly string[]) => Promise<void> = () => Promise.resolve();
  const teams = new TeamsService({
    tx,
    teams: stores.teams,
    memberships: teamMemberships,
    bus,
    clock,
    activity: activityLog,
    logger,
    republishBundles: (ids) => republishBundles(ids),
  });
  const toolPolicy = new ToolPolicy();
  const policy = new PolicyService({
    tx,
    rules: stores.policyRules,
    teams: stores.teams,
    policy: toolPolicy,
    bus,
    clock,
    activity: activityLog,
    logger,
  });
  const liveGuardrails = new Guardrails();
  const guardrails = new GuardrailsService({
    tx,
    store: stores.guardrails,
    bundles: stores.bundles,
    live: liveGuardrails,
    secrets,
    outbound: outboundPolicy,
    bus,
    clock,
    activity: activityLog,
    logger,
  });
  const oauthLogin = new OAuthLoginService({
    tx,
    invitations,
    providers: oauthProviders,
    authSettings,
    sessions,
    secrets,
    policy: outboundPolicy,
    clock,
    logger,
    onUserChange,
    activity: activityLog,
    applyGroups: (userId, providerType, groups) => teams.applyOAuthGroups(userId, providerType, groups),
  });
  const bundleRegistry = new BundlesRegistry();
  const gatewaySettings = new GatewaySettingsService(stores.gatewaySettings, clock, bus, tx, activityLog, bundleRegistry, teamMemberships);
  const oauthServer = new OAuthServerService({
    store: stores.oauth,
    tx,
    clients: new OAuthClientDirectory({ store: () => stores.oauth, clock, fetch: outboundPolicy.fetch }),
    clock,
    bus,
    activity: activityLog,
    registry: bundleRegistry,
    memberships: teamMemberships,
    gatewayBundles: (user) => gatewaySettings.reachableBundles(user),
    defaultRateLimitRpm,
    options: {
      accessTokenTtlSeconds: config.oauthAccessTokenTtlSeconds,
      refreshTokenTtlSeconds: config.oauthRefreshTokenTtlDays * 86_400,
    },
    logger,
  });
  const oauthRegistration = new OAuthClientRegistration({
    tx,
    clock,
    activity: activityLog,
    registrationPolicy: () => generalSettings.current.oauth_client_registration,
  });
  const connectedApps = new ConnectedApps({ store: stores.oauth, tx, clock, activity: activityLog, grants: oauthServer });

  const catalog = new InMemoryCatalog();
  const pool = new UpstreamPool({
    logger,
    clientInfo: { name: 'toolgate', version: VERSION },
    connectTimeoutMs: config.upstreamConnectTimeoutMs,
    retryBaseMs: config.upstreamRetryBaseMs,
    retryMaxMs: config.upstreamRetryMaxMs,
    maxFastRetries: config.upstreamMaxFastRetries,
    outboundPolicy,
    ...(config.upstreamAffineMaxPerServer > 0
      ? {
          affinity: {
            maxPerServer: config.upstreamAffineMaxPerServer,
            maxPerUser: config.upstreamAffineMaxPerUser,
            idleMs: config.upstreamAffineIdleMs,
            spares: config.upstreamAffineSpares,
          },
        }
      : {}),
  });
  // Sandboxed stdio servers: the jail, and the egress proxy that is their only network.
  const serverSandbox = new ServerSandbox({
    egress: new EgressProxy({ policy: outboundPolicy, logger }),
    sandboxUid: config.sandboxUid,
    generatedRoot: path.join(config.dataDir, 'generated'),
    logger,
  });
  const catalogSync = new CatalogSync({
    tx,
    servers: stores.servers,
    catalogStore: stores.catalog,
    catalog,
    pool,
    secrets,
    logger,
    connectTimeoutMs: config.upstreamConnectTimeoutMs,
    serverDefaults: () => generalSettings.serverDefaults(),
    stdioCommands: config.stdioCommands,
    generatedRoot: path.join(config.dataDir, 'generated'),
    // OpenAPI servers start Toolgate's bridge on their stored document (defined below; used only on connect).
    launcher: (row, connection): Promise<UpstreamServerSpec['connection'] | undefined> => openApiServers.launch(row, connection),
    sandbox: serverSandbox,
  });
  // Servers without their own call timeout or health-check interval follow the general settings.
  generalSettings.onChange(() =>
    catalogSync
      .applyServerDefaults()
      .catch((err: unknown) =>
        logger.warn(
          { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
          'servers did not take the new default timeouts',
        ),
      ),
  );
  const bundles = new BundlesService({
    tx,
    bundles: stores.bundles,
    bundleShares: stores.bundleShares,
    teams: stores.teams,
    registry: bundleRegistry,
    catalog,
    secrets,
    clock,
    keyPrefix: config.keyPrefix,
    activity: activityLog,
  });
  republishBundles = (ids) => bundles.republish(ids);
  // Scale-out: bundles and servers written on one instance are re-read by the others.
  const replication = new Replication({
    bus,
    registry: bundleRegistry,
    rereadBundle: (id) => bundles.applyRemoteChange(id),
    rereadServer: (id) => catalogSync.applyRemoteChange(id),
    logger,
  });
  const announceServer = (serverId: string): void => replication.announceServer(serverId);
  // Workers start on first use; the process sandbox is detected by start() (or on first need).
  const sandbox = new SandboxRunner({ logger, processSandbox: config.processSandbox, sandboxUid: config.sandboxUid });
  const scriptTools = new ScriptToolRegistry();
  const skillTools = new SkillToolsService({
    tx,
    skills: stores.skills,
    attachments: stores.skillAttachments,
    servers: stores.servers,
    registry: scriptTools,
    runner: sandbox,
    sync: catalogSync,
    bundles,
    clock,
    logger,
    activity: activityLog,
  });
  const skillCatalogs = new SkillCatalogs({
    policy: outboundPolicy,
    githubApiUrl: config.skillsGithubApiUrl,
    githubToken: () => registryGithubToken(() => generalSettings.registry(), config.skillsGithubApiUrl),
    logger,
  });
  // A listing fetched with other credentials (or none) must not outlive a registry change.
  generalSettings.onChange(() => skillCatalogs.clearCache());
  const skills = new SkillsService({ tx, skills: stores.skills, catalogs: skillCatalogs, tools: skillTools, activity: activityLog, clock });
  const issuerKeys = new ToolgateIssuerKeys({ store: stores.upstreamOAuth, secrets });
  const upstreamConnections = new UpstreamConnectionsService({
    tx,
    issuerKeys,
    store: stores.upstreamOAuth,
    servers: stores.servers,
    client: new UpstreamOAuthClient((url, init) => outboundPolicy.fetch(url, init)),
    secrets,
    clock,
    logger,
    // The served address until server.ts names the public base URL (useBaseUrl).
    publicBase: () => config.publicUrl?.replace(/\/+$/, '') ?? `http://127.0.0.1:${config.port}`,
    clientMetadataUrl: config.upstreamClientMetadataUrl,
  });
  // Calls to OAuth upstreams carry tokens from the vault; their sync and health use its discovery credential.
  pool.useCredentials(upstreamConnections);
  catalogSync.useCredentials(upstreamConnections);
  upstreamConnections.onAuthorized((serverId, revoked) => catalogSync.authorized(serverId, revoked));
  const servers = new ServersService({
    tx,
    servers: stores.servers,
    catalog,
    sync: catalogSync,
    bundles,
    // A deleted server's script tools leave the sandbox registry, and its series leave the metrics.
    scriptTools: {
      forgetServer: (id) => {
        skillTools.forgetServer(id);
        metrics.forgetServer(id);
      },
    },
    secrets,
    outboundPolicy,
    clock,
    logger,
    activity: activityLog,
    defaults: () => generalSettings.serverDefaults(),
    announce: announceServer,
    generatedRoot: path.join(config.dataDir, 'generated'),
    stdioCommands: config.stdioCommands,
    sandboxAvailable: () => serverSandbox.available(),
    oauthChanged: (id) => upstreamConnections.forget(id),
  });
  const openApiServers = new OpenApiServersService({
    servers,
    store: stores.servers,
    policy: outboundPolicy,
    documentsDir: path.join(config.dataDir, 'openapi'),
    allowlist: () => generalSettings.current.outbound_allowlist,
    callTimeoutMs: () => generalSettings.serverDefaults().callTimeoutMs,
  });
  const registryImport = new RegistryImportService({ servers, policy: outboundPolicy, registry: () => generalSettings.registry() });
  // A listing fetched from one registry (or with one token) must not outlive a registry change.
  generalSettings.onChange(() => registryImport.clearCache());
  const catalogService = new CatalogService({
    tx,
    servers: stores.servers,
    catalogStore: stores.catalog,
    catalog,
    sync: catalogSync,
    activity: activityLog,
    announce: announceServer,
  });
  const callRecorder = new CallRecorder(stores.callRecords, logger, {
    observe: (r) => metrics.toolCall(r.server_id, r.status, r.latency_ms / 1000),
    ...options.callRecorder,
  });
  metrics.setSources({
    callRecords: () => callRecorder.health(),
    upstreams: () => pool.serverIds().map((serverId) => ({ serverId, status: pool.state(serverId)?.status ?? 'connecting' })),
    affineConnections: () => pool.affinityStats(),
    dbPool: () => db.poolStats(),
  });
  const aiProviders = new AiProvidersService({
    tx,
    store: stores.aiProviders,
    secrets,
    policy: outboundPolicy,
    clock,
    logger,
    activity: activityLog,
    bus,
  });
  const skillGenerator = new SkillGenerator({
    llm: (providerId) => aiProviders.llmWithReasoning(providerId),
    skills,
    logger,
  });
  const generation = new GenerationService(
    {
      tx,
      store: stores.generationJobs,
      aiProviders,
      // Deployment registers through the same service as the REST API.
      servers: {
        create: (input) => servers.create(input),
        get: (id) => servers.get(id, ADMIN_VIEW),
        refresh: (id) => servers.refresh(id),
        delete: (id) => servers.delete(id),
        nameTaken: (name) => servers.nameTaken(name),
        requestNetwork: (id, hosts, reason) => servers.requestNetwork(id, hosts, reason),
      },
      activity: activityLog,
      clock,
      logger,
      dataDir: config.dataDir,
      sandboxUid: config.sandboxUid,
    },
    {
      ...options.generation,
      concurrency: options.generation?.concurrency ?? config.generationConcurrency,
      limits: { repairRounds: config.generationRepairRounds, ...options.generation?.limits },
    },
  );
  // The general-settings reset also resets AI providers (spec 4.4), in the same transaction.
  generalSettings.addResetHook(aiProviders.resetHook);
  const dashboard = new DashboardService({
    store: stores.dashboard,
    activity: stores.activity,
    catalog,
    upstreamState: (id) => pool.state(id),
    bundles: bundleRegistry,
    clock,
  });
  // Not in `Stores`: the purge runs outside any transaction, on a connection of its own (advisory lock).
  const retention = new RetentionService(
    { store: new RetentionStore(db.knex, { advisoryLock: db.kind === 'postgres' }), settings: generalSettings, clock, logger },
    { vacuum: db.kind === 'pglite' },
  );
  // Like the purge: on a connection of its own, under an advisory lock (one instance exports).
  const auditSinks: AuditSink[] = [];
  if (config.auditOtlpLogs) auditSinks.push(new OtlpLogSink(VERSION));
  if (config.auditFile) auditSinks.push(new JsonLinesFileSink(config.auditFile, config.auditFileMaxBytes, config.auditFileKeep));
  if (config.auditWebhookUrl && config.auditWebhookSecret)
    auditSinks.push(new WebhookSink(config.auditWebhookUrl, config.auditWebhookSecret, outboundPolicy));
  const auditExport = new AuditExporter(
    new AuditExportStore(db.knex, { advisoryLock: db.kind === 'postgres' }),
    auditSinks,
    {
      batchSize: config.auditBatchSize,
      intervalMs: config.auditIntervalMs,
      backlogWarn: config.auditBacklogWarn,
      gapGraceMs: config.auditGapGraceMs,
    },
    { logger, metrics: metrics.audit },
  );

  let closing: Promise<void> | undefined;
  return {
    db,
    stores,
    tx,
    secrets,
    requestStateKey: deriveKey(masterKey, 'mcp-request-state-v1'),
    outboundPolicy,
    bus,
    rateLimiter,
    metrics,
    users,
    apiKeys,
    apiKeyAuth,
    sessions,
    keySessions,
    authSettings,
    oauthProviders,
    oauthLogin,
    oauthServer,
    oauthRegistration,
    connectedApps,
    invitations,
    gatewaySettings,
    teams,
    teamMemberships,
    toolPolicy,
    policy,
    liveGuardrails,
    guardrails,
    catalog,
    pool,
    upstreams: new ScriptToolRouter(scriptTools, sandbox, options.upstreams ?? pool),
    catalogSync,
    servers,
    catalogService,
    upstreamConnections,
    issuerKeys,
    bundleRegistry,
    bundles,
    registryApi: new RegistryApiService({ bundles: stores.bundles, registry: bundleRegistry, memberships: teamMemberships }),
    openApiServers,
    registryImport,
    configDocuments: new ConfigDocumentService({
      tx,
      stores,
      catalog,
      servers,
      sync: catalogSync,
      bundles,
      settings: generalSettings,
      secrets,
      clock,
      activity: activityLog,
      keyPrefix: config.keyPrefix,
      announce: announceServer,
    }),
    callRecorder,
    aiProviders,
    generation,
    activityLog,
    dashboard,
    generalSettings,
    retention,
    auditExport,
    skills,
    skillCatalogs,
    skillTools,
    skillGenerator,
    sandbox,
    start() {
      apiKeyAuth.start();
      sessions.start();
      oauthServer.start();
      retention.start();
      auditExport.start();
      generation.start();
      void sandbox.detect();
    },
    close() {
      closing ??= (async () => {
        sessions.stop();
        // First: a running job may still be deploying through the pool and the database.
        await generation.stop();
        await retention.stop();
        await auditExport.stop();
        generalSettings.stop();
        await callRecorder.stop();
        await catalogSync.close();
        await serverSandbox.close();
        await sandbox.close();
        await apiKeyAuth.stop();
        await oauthServer.stop();
        await rateLimiter.close();
        replication.close();
        await bus.close();
        await db.close();
      })();
      return closing;
    },
  };
}
