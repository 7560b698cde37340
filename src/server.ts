import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, createMcpFastPath } from './app.js';
import { oauthEndpoints } from './http/oauth-endpoints.js';
import { openServices, VERSION, type ServiceOptions, type Services } from './compose.js';
import { composeMcp, type McpComposeOptions, type McpEndpoints } from './compose-mcp.js';
import type { Config } from './config.js';
import type { UpstreamCaller } from './domain/upstream-call.js';
import { createHandlers } from './handlers/index.js';
import { consoleStatic } from './http/console-static.js';
import { PublicUrl } from './http/public-url.js';
import { createRestApi } from './http/rest-api.js';
import { GatewayResponse } from './http/gateway-response.js';
import { metricsTokenRoute } from './http/metrics-route.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createLogger, type Logger } from './logger.js';
import type { CallRecorderOptions } from './mcp/call-recorder.js';
import { rateLimitHeaders } from './redis/rate-limiter.js';
import { checkScope } from './domain/authorization.js';

export const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OPENAPI_PATH = path.join(ROOT_DIR, 'openapi.yaml');
/** The built web console (`npm run build:web`, run by `npm install`). */
export const CONSOLE_DIR = path.join(ROOT_DIR, 'web', 'dist');
import { DataDirLock } from './lib/data-dir-lock.js';
import { adminSocketPath, startAdminSocket, type AdminSocket } from './admin-socket.js';
import { bootstrapOwner } from './services/identity/bootstrap-service.js';
import { ConflictError, RequestValidationError } from './errors.js';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly services: Services;
  readonly logger: Logger;
  /** The MCP endpoints (their sessions, for tests). */
  readonly mcp: McpEndpoints;
  /** The listening HTTP server (benchmarks time requests on it server-side). */
  readonly httpServer: http.Server;
  /** Stops accepting, lets in-flight requests finish (up to the configured grace), closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  clock?: Clock;
  /** Upstream caller to use instead of the pool (benchmarks, fault tests). */
  upstreams?: UpstreamCaller;
  /** Tunables of the MCP endpoints. */
  mcp?: McpComposeOptions;
  callRecorder?: CallRecorderOptions;
  /** Generation tunables (tests shorten time-outs and polling). */
  generation?: ServiceOptions['generation'];
  keyUsageFlushMs?: ServiceOptions['keyUsageFlushMs'];
  /** Directory of the built web console (default `web/dist`). */
  consoleDir?: string;
}

/**
 * Starts the process's HTTP server: the object graph from the composition root (src/compose.ts),
 * the REST API and the MCP routes on one listener, and the graceful stop. Takes the data directory's lock first (throws DataDirLockedError, having written nothing, when
 * another process holds it) and keeps it until `stop()` has closed the database.
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  const lock = DataDirLock.acquire(config.dataDir, { role: 'server' });
  try {
    return await startLocked(config, options, logger, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startLocked(config: Config, options: StartOptions, logger: Logger, lock: DataDirLock): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const startedAt = new Date();
  const services = await openServices(config, logger, clock, {
    upstreams: options.upstreams,
    callRecorder: options.callRecorder,
    generation: options.generation,
    keyUsageFlushMs: options.keyUsageFlushMs,
  });
  const publicUrl = new PublicUrl(config);
  services.upstreamConnections.useBaseUrl(() => publicUrl.of({}));
  const mcp = composeMcp(services, config, logger, { ...options.mcp, baseUrl: (headers) => publicUrl.of(headers) });
  const publicOrigin = config.publicUrl ? new URL(config.publicUrl).origin : undefined;
  let originsFor: readonly string[] | undefined;
  let origins: ReadonlySet<string> = new Set();
  // Recomputed only when the settings' list changes (the list object is replaced on change).
  const trustedOrigins = (allowed: readonly string[]): ReadonlySet<string> => {
    if (allowed !== originsFor) {
      originsFor = allowed;
      origins = new Set([...allowed.map((o) => new URL(o).origin), ...(publicOrigin ? [publicOrigin] : [])]);
    }
    return origins;
  };
  let stopping = false;

  const handlers = createHandlers({ config, logger, version: VERSION, startedAt, publicUrl, services });
  const rest = await createRestApi({
    definition: OPENAPI_PATH,
    handlers,
    authenticator: {
      fromBearer: (token, ip) => services.apiKeyAuth.authenticate(token, ip),
      fromCookie: (token) => services.sessions.authenticate(token),
    },
    authorize: checkScope,
    rateLimit: async (principal) => rateLimitHeaders(await services.rateLimiter.check(principal)),
    trustedOrigins: () => trustedOrigins(services.generalSettings.current.allowed_origins),
    logger,
  });
  services.start();
  const app = createApp({
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    rest,
    mcp: mcp.middleware(),
    oauth: oauthEndpoints({
      api: services.oauthServer,
      registration: services.oauthRegistration,
      base: (headers) => publicUrl.of(headers),
      hasBundle: (bundleId) => services.bundleRegistry.get(bundleId) !== undefined,
      jwks: () => services.issuerKeys.jwks(),
    }),
    console: consoleStatic({
      dir: options.consoleDir ?? CONSOLE_DIR,
      onMissing: (dir) => logger.warn({ dir }, 'web console not built: run npm run build:web'),
    }),
    isStopping: () => stopping,
    metrics: services.metrics,
    metricsRoute: metricsTokenRoute({ token: config.metricsToken, metrics: services.metrics }),
    changes: services.bus,
  });

  const koa = app.callback();
  // The MCP Streamable HTTP paths are served ahead of Koa (same rules, less per-request work).
  const mcpFastPath = createMcpFastPath({
    logger,
    metrics: services.metrics,
    isStopping: () => stopping,
    route: (p) => mcp.fastRoute(p),
    serve: (req, res, route, requestId, access) => mcp.core.serveRaw(req, res, route, requestId, access),
  });
  const server = http.createServer({ ServerResponse: GatewayResponse }, (req, res) => {
    if (!mcpFastPath(req, res)) void koa(req, res);
  });
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

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await services.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  publicUrl.bound(config.host, port);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  // CLI commands that write (bootstrap) reach this process through its admin socket.
  let adminSocket: AdminSocket | undefined;
  try {
    adminSocket = await startAdminSocket({
      socketPath: adminSocketPath(lock.dataDir),
      logger,
      commands: {
        bootstrap: (input) => bootstrapOwner(services, input),
        exportConfig: (secrets) => services.configDocuments.export(config.publicUrl ?? url, secrets),
        importConfig: (document, dryRun) => services.configDocuments.import(document, { dryRun, userId: null }),
      },
      describeError: (err) =>
        err instanceof ConflictError
          ? { status: 409, body: { detail: err.message } }
          : err instanceof RequestValidationError
            ? { status: 422, body: { detail: err.issues } }
            : undefined,
    });
  } catch (err) {
    logger.warn({ err }, 'admin socket unavailable: CLI commands cannot reach this server');
  }
  lock.update({ url, ...(adminSocket ? { socket: adminSocket.path } : {}) });
  logger.info({ url, database: services.db.kind, version: VERSION }, 'toolgate listening');
  if ((await services.stores.users.count().catch(() => 1)) === 0) {
    logger.info('no users yet: create the first owner with `npm run toolgate -- bootstrap --email you@example.com` (in another terminal)');
  }
  services.catalogSync.connectAll();

  // Keeps /health's database field current even when nothing calls /ready.
  const dbWatch = setInterval(() => services.db.ping().catch(() => undefined), 10_000);
  dbWatch.unref();

  let stopPromise: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopPromise ??= (async () => {
      stopping = true;
      clearInterval(dbWatch);
      await adminSocket?.close();
      logger.info({ inFlight, timeoutMs: config.shutdownTimeoutMs }, 'stopping: draining in-flight requests');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Open GET streams never finish on their own: end them (their sessions live on, so calls
      // in flight on those sessions finish and answer).
      mcp.drain();
      const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), config.shutdownTimeoutMs)));
      const outcome = await Promise.race([idle, timeout]);
      clearTimeout(timer);
      if (outcome === 'timeout') logger.warn({ inFlight }, 'shutdown timeout reached: cancelling what is still running');
      // Only now: sessions end (their calls are cancelled), connections close (2026-07-28 calls are
      // cancelled by their closed streams), and the cancelled calls get their records.
      mcp.close();
      server.closeAllConnections();
      await mcp.settled(1000);
      await closed;
      await services.close();
      lock.release();
      logger.info('stopped');
    })();
    return stopPromise;
  };

  return { url, port, services, logger, mcp, stop, httpServer: server };
}
