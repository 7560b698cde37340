import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { composeMcp, openServices, VERSION, type Services } from './compose.js';
import type { Config } from './config.js';
import type { UpstreamCaller } from './domain/catalog.js';
import { createHandlers } from './handlers/index.js';
import { PublicUrl } from './http/public-url.js';
import { createRestApi } from './http/rest-api.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createLogger, type Logger } from './logger.js';
import type { McpOptions } from './mcp/bundle-endpoint.js';
import type { CallRecorderOptions } from './mcp/call-recorder.js';
import { rateLimitHeaders } from './services/rate-limiter.js';
import { checkScope } from './services/authorization.js';

export const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OPENAPI_PATH = path.join(ROOT_DIR, 'openapi.yaml');

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
  const mcp = composeMcp(services, config, logger, options.mcp);
  const publicUrl = new PublicUrl(config);
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
  });
  services.start();
  const bundleEndpoint = mcp.bundle;
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
  publicUrl.bound(config.host, port);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  logger.info({ url, database: services.db.kind, version: VERSION }, 'toolgate listening');
  services.catalogSync.connectAll();

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
      await services.close();
      logger.info('stopped');
    })();
    return stopPromise;
  };

  return { url, port, services, logger, stop };
}
