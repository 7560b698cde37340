import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createHandlers } from './handlers/index.js';
import { createRestApi } from './http/rest-api.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createLogger, type Logger } from './logger.js';
import type { ApiKeysService } from './services/api-keys-service.js';
import { ApiKeysStore } from './stores/api-keys-store.js';
import { migrateToLatest, openDatabase, type Database } from './stores/database.js';
import { UsersStore } from './stores/users-store.js';
import { loadMasterKey, SecretBox } from './lib/secret-box.js';
import { InMemoryCatalog } from './services/in-memory-catalog.js';
import type { UpstreamCaller } from './services/catalog-types.js';
import { BundlesRegistry } from './services/bundles-registry.js';
import { BundlesService } from './services/bundles-service.js';
import { BundlesStore } from './stores/bundles-store.js';
import { CallRecordsStore } from './stores/call-records-store.js';
import { BundleEndpoint, type McpOptions } from './mcp/bundle-endpoint.js';
import { CallRecorder, type CallRecorderOptions } from './mcp/call-recorder.js';
import { ServersService } from './services/servers-service.js';
import { ServersStore } from './stores/servers-store.js';
import { CatalogStore } from './stores/catalog-store.js';
import { createIdentity, type IdentityServices } from './services/identity.js';
import { createSkillServices, type SkillServices } from './skills-composition.js';

export const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OPENAPI_PATH = path.join(ROOT_DIR, 'openapi.yaml');
export const VERSION = '0.1.0';

/** The stores and services of one process, built on one database. */
export interface Services {
  readonly db: Database;
  readonly users: UsersStore;
  readonly apiKeysStore: ApiKeysStore;
  readonly apiKeys: ApiKeysService;
  /** Seals and opens every secret stored at rest. */
  readonly secrets: SecretBox;
  /** The tool catalog the hot path reads; filled by the server registry. */
  readonly catalog: InMemoryCatalog;
  /** Calls into upstream servers: the shared pool (one MCP client per registered server). */
  readonly upstreams: UpstreamCaller;
  /** The upstream server registry (CRUD, catalog sync, tool selection, health). */
  readonly servers: ServersService;
  /** Every bundle in memory (by id and key hash), for the MCP hot path. */
  readonly bundleRegistry: BundlesRegistry;
  readonly bundles: BundlesService;
  readonly callRecords: CallRecordsStore;
  /** Writes call records in batches, off the request path. */
  readonly callRecorder: CallRecorder;
  /** Users, keys, sessions, OAuth, invitations, rate limits (`apiKeys` above is `identity.apiKeys`). */
  readonly identity: IdentityServices;
  /** Agent Skills: library, catalogs, script tools and their sandboxes. */
  readonly skills: SkillServices;
}

/** Optional parts of the services a caller may supply (tests, benchmarks). */
export interface ServiceOptions {
  /** Replaces the upstream pool as the bundle endpoint's way to call tools (benchmarks, fault tests). */
  upstreams?: UpstreamCaller;
  callRecorder?: CallRecorderOptions;
}

/** Opens the database, migrates it and builds the services on it (no HTTP). */
export async function openServices(
  config: Config,
  logger: Logger,
  clock: Clock = systemClock,
  options: ServiceOptions = {},
): Promise<Services> {
  const masterKey = loadMasterKey(config.secretKey, config.dataDir);
  const secrets = new SecretBox(masterKey);
  const db = openDatabase(config, logger);
  try {
    await migrateToLatest(db, logger, { schema: config.databaseSchema, connectTimeoutMs: config.dbConnectTimeoutMs });
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  const users = new UsersStore(db.knex);
  const apiKeysStore = new ApiKeysStore(db.knex);
  const catalog = new InMemoryCatalog();
  const servers = new ServersService({
    knex: db.knex,
    servers: new ServersStore(db.knex),
    catalogStore: new CatalogStore(db.knex),
    catalog,
    secrets,
    logger,
    pool: {
      clientInfo: { name: 'toolgate', version: VERSION },
      connectTimeoutMs: config.upstreamConnectTimeoutMs,
      retryBaseMs: config.upstreamRetryBaseMs,
      retryMaxMs: config.upstreamRetryMaxMs,
      maxFastRetries: config.upstreamMaxFastRetries,
    },
  });
  const bundleRegistry = new BundlesRegistry();
  const bundles = new BundlesService(db.knex, new BundlesStore(db.knex), bundleRegistry, catalog, secrets, clock, config.keyPrefix);
  const callRecords = new CallRecordsStore(db.knex);
  try {
    await bundles.loadRegistry();
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  const identity = createIdentity({ config, logger, clock, knex: db.knex, users, apiKeysStore, secrets, masterKey });
  // Agent Skills; calls of script tools are routed to the sandbox, every other call to the upstreams.
  const skills = await createSkillServices({
    knex: db.knex,
    config,
    logger,
    clock,
    policy: identity.outboundPolicy,
    catalog,
    servers,
    bundles,
    upstreams: options.upstreams ?? servers.pool,
  }).catch(async (err: unknown) => {
    await db.close().catch(() => undefined);
    throw err;
  });
  return {
    skills,
    db,
    users,
    apiKeysStore,
    apiKeys: identity.apiKeys,
    identity,
    secrets,
    catalog,
    servers,
    upstreams: skills.upstreams,
    bundleRegistry,
    bundles,
    callRecords,
    callRecorder: new CallRecorder(callRecords, logger, options.callRecorder),
  };
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly services: Services;
  readonly logger: Logger;
  /** Stops accepting, lets in-flight requests finish (up to the configured grace), closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  clock?: Clock;
  /** Upstream caller to use instead of the pool (benchmarks, fault tests). */
  upstreams?: UpstreamCaller;
  /** Tunables of the MCP endpoints. */
  mcp?: McpOptions;
  callRecorder?: CallRecorderOptions;
}

/** Builds everything from the configuration and listens. The composition root of the process. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  const clock = options.clock ?? systemClock;
  const startedAt = new Date();
  const services = await openServices(config, logger, clock, { upstreams: options.upstreams, callRecorder: options.callRecorder });
  let stopping = false;

  const handlers = createHandlers({
    config,
    logger,
    db: services.db,
    clock,
    identity: services.identity,
    version: VERSION,
    startedAt,
    bundles: services.bundles,
    servers: services.servers,
    skills: services.skills.skills,
    skillCatalogs: services.skills.skillCatalogs,
    skillTools: services.skills.skillTools,
  });
  const rest = await createRestApi({
    definition: OPENAPI_PATH,
    handlers,
    authenticator: {
      fromBearer: (token, ip) => services.identity.authenticateBearer(token, ip),
      fromCookie: (token, ip) => services.identity.authenticateCookie(token, ip),
    },
    authorize: (principal, operation) => services.identity.checkScope(principal, operation),
    rateLimit: (principal) => services.identity.checkRateLimit(principal),
  });
  services.identity.start();
  // The catalog is in memory before the first request; upstreams connect after listen, in the background.
  await services.servers.loadCatalog();
  const bundleEndpoint = new BundleEndpoint({
    registry: services.bundleRegistry,
    catalog: services.catalog,
    upstreams: services.upstreams,
    recorder: services.callRecorder,
    logger,
    config,
    version: VERSION,
    options: options.mcp,
  });
  const app = createApp({
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    rest,
    mcp: bundleEndpoint.middleware(),
    isStopping: () => stopping,
  });

  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 300_000;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  server.on('request', (_req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  logger.info({ url, database: services.db.kind, version: VERSION }, 'toolgate listening');
  services.servers.connectAll();

  // Keeps /health's database field current even when nothing calls /ready.
  const dbWatch = setInterval(() => services.db.ping().catch(() => undefined), 10_000);
  dbWatch.unref();

  let stopPromise: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopPromise ??= (async () => {
      stopping = true;
      clearInterval(dbWatch);
      logger.info({ inFlight }, 'stopping: draining in-flight requests');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, config.shutdownTimeoutMs)));
      // Open MCP streams never finish on their own: end them so the drain can.
      bundleEndpoint.close();
      await Promise.race([idle, timeout]);
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
      await services.callRecorder.stop();
      await services.servers.close();
      await services.skills.sandbox.close();
      await services.identity.close();
      await services.db.close();
      logger.info('stopped');
    })();
    return stopPromise;
  };

  return { url, port, services, logger, stop };
}
