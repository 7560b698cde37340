import { randomUUID } from 'node:crypto';
import Koa, { type Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { PayloadTooLargeError, RequestValidationError, UnsupportedMediaTypeError } from './errors.js';
import { toErrorReply } from './http/error-mapping.js';
import type { Metrics } from './lib/metrics.js';
import type { Logger } from './logger.js';
import type { McpAccess } from './mcp/endpoint-core.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Path segments that are secrets (invitation tokens, bundle keys) and must not reach a log line. */
const SECRET_PATH = /^(\/api\/v1\/invitations\/accept\/|\/mcp\/bundle\/)[^/]+/;
const logPath = (p: string): string => p.replace(SECRET_PATH, '$1[redacted]');

export interface AppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Routes served before body parsing (the MCP endpoints parse their own bodies). */
  mcp?: Middleware;
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
    if (options.metrics) {
      const status = mcp ? ctx.res.statusCode : ctx.status;
      const route = (ctx.state.route as string | undefined) ?? (mcp ? `mcp_${mcp.endpoint}` : status === 404 ? 'unmatched' : 'other');
      options.metrics.httpRequest(route, ctx.method, status, elapsedMs / 1000);
      if (mcp) options.metrics.mcpRequest(mcp.endpoint, mcp.method, status < 400 && mcp.rpcError === undefined, elapsedMs / 1000);
    }
    if (options.logger.isLevelEnabled('info')) {
      const ms = Math.round(elapsedMs * 100) / 100;
      if (mcp) {
        // The MCP access line: what was asked of which bundle, and how it went; no key, no arguments.
        options.logger.info(
          {
            requestId,
            endpoint: mcp.endpoint,
            bundle: mcp.bundle,
            user: mcp.user,
            method: mcp.method,
            tool: mcp.tool,
            status: ctx.res.statusCode,
            rpc_error: mcp.rpcError,
            ms,
          },
          'mcp request',
        );
      } else {
        options.logger.info({ requestId, method: ctx.method, path: logPath(ctx.path), status: ctx.status, ms }, 'request');
      }
    }
  });

  if (options.metricsRoute) app.use(options.metricsRoute);
  if (options.mcp) app.use(options.mcp);
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

  app.use(async (ctx) => {
    await options.rest(ctx);
  });

  return app;
}
