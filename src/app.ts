import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa, { type Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { PayloadTooLargeError, RequestValidationError, UnsupportedMediaTypeError } from './errors.js';
import { toErrorReply } from './http/error-mapping.js';
import type { Metrics } from './lib/metrics.js';
import type { ChangeBus } from './redis/change-bus.js';
import type { Logger } from './logger.js';
import { GatewayResponse } from './http/gateway-response.js';
import type { McpAccess, McpRoute } from './mcp/transport/route.js';
import { traceRestRequest, tracingOn } from './telemetry/tracing.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The load balancer's probes. */
const PROBES = new Set(['/health', '/ready']);
/** Path segments that are secrets (invitation tokens, bundle keys) and must not reach a log line. */
const SECRET_PATH = /^(\/api\/v1\/invitations\/accept\/|\/mcp\/bundle\/)[^/]+/;
const logPath = (p: string): string => p.replace(SECRET_PATH, '$1[redacted]');

export interface AppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Routes served before body parsing (the MCP endpoints parse their own bodies). */
  mcp?: Middleware;
  /** The OAuth protocol endpoints (`/.well-known/…`, `/oauth/…` but the console's consent page), before body parsing. */
  oauth?: Middleware;
  /** The web console (static files at `/`); never answers `/api`, `/mcp`, `/health` or `/ready`. */
  console?: Middleware;
  /** The REST dispatcher (openapi-backend). */
  rest: (ctx: Koa.ParameterizedContext) => Promise<void>;
  /** True once a graceful stop has begun: responses then ask clients to close the connection. */
  isStopping: () => boolean;
  /** Request counts and latencies are observed here (route: the REST operationId the dispatcher set). */
  metrics?: Metrics;
  /** `GET /metrics` for scrapers holding the metrics token; served ahead of everything else. */
  metricsRoute?: Middleware;
  /**
   * Read-your-writes across instances (the change bus): a REST request is served once the changes
   * other instances announced before it are applied here, and answered once the changes it made
   * are on their way to the others.
   */
  changes?: Pick<ChangeBus, 'caughtUp' | 'sent'>;
}

/** Turns body-parser failures into the contract's answers: 422 json_invalid, or 413. */
function bodyParseError(err: Error & { status?: number; type?: string; body?: string }): Error {
  if (err.status === 413 || err.type === 'entity.too.large') return new PayloadTooLargeError();
  const reason = err.message.replace(/\s+/g, ' ').slice(0, 200);
  return new RequestValidationError([
    { loc: ['body'], msg: `JSON decode error: ${reason}`, type: 'json_invalid', input: {}, ctx: { error: reason } },
  ]);
}

/**
 * The logger of MCP access lines: their fields are fixed (ids, method, tool name, status, time) and
 * never hold a secret, so the redaction every other line goes through (about 5 µs a line, a
 * measurable share of a tool call's CPU) is skipped for them. One per process logger.
 */
const accessLoggers = new WeakMap<Logger, Logger>();
function accessLogger(logger: Logger): Logger {
  let access = accessLoggers.get(logger);
  if (!access) accessLoggers.set(logger, (access = logger.child({}, { redact: { paths: [] } })));
  return access;
}

/** Metrics and the MCP access line of one MCP request: what was asked of which bundle, and how it went; no key, no arguments. */
function mcpAccessLine(
  options: Pick<AppOptions, 'logger' | 'metrics'>,
  requestId: string,
  method: string,
  mcp: McpAccess,
  status: number,
  elapsedMs: number,
): void {
  if (options.metrics) {
    options.metrics.httpRequest(`mcp_${mcp.endpoint}`, method, status, elapsedMs / 1000);
    options.metrics.mcpRequest(mcp.endpoint, mcp.method, status < 400 && mcp.rpcError === undefined, elapsedMs / 1000);
  }
  if (options.logger.isLevelEnabled('info')) {
    accessLogger(options.logger).info(
      {
        requestId,
        endpoint: mcp.endpoint,
        bundle: mcp.bundle,
        user: mcp.user,
        method: mcp.method,
        tool: mcp.tool,
        status,
        rpc_error: mcp.rpcError,
        ms: Math.round(elapsedMs * 100) / 100,
      },
      'mcp request',
    );
  }
}

export interface McpFastPathOptions {
  logger: Logger;
  metrics?: Metrics;
  isStopping: () => boolean;
  /** The MCP route serving a path (the Streamable HTTP paths), or undefined when Koa serves it. */
  route: (path: string) => McpRoute | undefined;
  /** Serves one request of a route (`McpTransport.serveRaw`). */
  serve: (req: IncomingMessage, res: ServerResponse, route: McpRoute, requestId: string, access: McpAccess) => Promise<void>;
}

/**
 * The plain `node:http` fast path for the MCP Streamable HTTP paths (`/mcp/bundle/{bundle_key}`
 * and `/mcp/gateway`), ahead of Koa: the same request id, response headers, metrics and access
 * line as the Koa chain gives them, and the same transport pipeline (Origin/Host guard, Accept and
 * Content-Type, authentication, rate limits, sessions, body cap, error shapes). Returns false for
 * any other path: Koa serves it.
 */
export function createMcpFastPath(options: McpFastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '';
    // Only origin-form targets under /mcp/ (anything unusual takes the Koa path, which serves it the same).
    if (url.charCodeAt(0) !== 47 || !url.startsWith('/mcp/')) return false;
    const q = url.indexOf('?');
    const route = options.route(q < 0 ? url : url.slice(0, q));
    if (!route) return false;
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const headers = ['X-Request-Id', requestId, 'X-Content-Type-Options', 'nosniff', 'Cache-Control', 'no-store'];
    if (options.isStopping()) headers.push('Connection', 'close');
    // Written with the answer's status line (GatewayResponse); a plain ServerResponse sets them here.
    if (res instanceof GatewayResponse) res.baseHeaders = headers;
    else for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
    const access: McpAccess = { endpoint: route.endpoint };
    const method = req.method ?? 'GET';
    void options.serve(req, res, route, requestId, access).then(() => {
      mcpAccessLine(options, requestId, method, access, res.statusCode, Number(process.hrtime.bigint() - started) / 1e6);
    });
    return true;
  };
}

/**
 * The Koa application: request id and error mapping outermost, then the MCP routes, the web
 * console's static files, then JSON body parsing and the REST dispatcher as the catch-all.
 */
export function createApp(options: AppOptions): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;

  app.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    if (options.isStopping()) ctx.set('Connection', 'close');
    const started = process.hrtime.bigint();
    try {
      await next();
    } catch (err) {
      const reply = toErrorReply(err, requestId);
      if (reply.internal) options.logger.error({ err, requestId, method: ctx.method, path: logPath(ctx.path) }, 'request failed');
      ctx.status = reply.status;
      ctx.set(reply.headers);
      ctx.body = reply.body;
    }
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    const mcp = ctx.state.mcp as McpAccess | undefined;
    if (mcp) {
      mcpAccessLine(options, requestId, ctx.method, mcp, ctx.res.statusCode, elapsedMs);
      return;
    }
    if (options.metrics) {
      const status = ctx.status;
      const route = (ctx.state.route as string | undefined) ?? (status === 404 ? 'unmatched' : 'other');
      options.metrics.httpRequest(route, ctx.method, status, elapsedMs / 1000);
    }
    if (options.logger.isLevelEnabled('info')) {
      const ms = Math.round(elapsedMs * 100) / 100;
      options.logger.info({ requestId, method: ctx.method, path: logPath(ctx.path), status: ctx.status, ms }, 'request');
    }
  });

  if (options.metricsRoute) app.use(options.metricsRoute);
  if (options.mcp) app.use(options.mcp);
  if (options.oauth) app.use(options.oauth);
  if (options.console) app.use(options.console);

  app.use(async (ctx, next) => {
    // A body must be JSON: anything else is refused before it is read.
    const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (hasBody && !ctx.is('application/json')) throw new UnsupportedMediaTypeError();
    await next();
  });

  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: String(options.bodyLimitBytes),
      strict: true,
      onerror: (err) => {
        throw bodyParseError(err as Error & { status?: number; type?: string });
      },
    }),
  );

  const changes = options.changes;
  app.use(async (ctx) => {
    // Probes read no cache and must never wait on Redis.
    const behind = PROBES.has(ctx.path) ? undefined : changes?.caughtUp();
    if (behind) await behind;
    try {
      // With tracing on, each REST operation (not the load balancer's probes) is a server span
      // named by its operationId; the status of a thrown error is the one the outer layer answers.
      if (tracingOn && !PROBES.has(ctx.path)) {
        let thrown: unknown;
        await traceRestRequest(
          ctx.method,
          ctx.req.headers,
          () =>
            options.rest(ctx).catch((err: unknown) => {
              thrown = err;
              throw err;
            }),
          () => ({
            route: ctx.state.route as string | undefined,
            status: thrown === undefined ? ctx.status : toErrorReply(thrown, '').status,
          }),
        );
      } else await options.rest(ctx);
    } finally {
      const sending = changes?.sent();
      if (sending) await sending;
    }
  });

  return app;
}
