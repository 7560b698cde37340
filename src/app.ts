import { randomUUID } from 'node:crypto';
import Koa, { type Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { PayloadTooLargeError, RequestValidationError, UnsupportedMediaTypeError } from './errors.js';
import { toErrorReply } from './http/error-mapping.js';
import type { Logger } from './logger.js';
import type { McpAccess } from './mcp/bundle-endpoint.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Path segments that are secrets (invitation tokens, bundle keys) and must not reach a log line. */
const SECRET_PATH = /^(\/api\/v1\/invitations\/accept\/|\/mcp\/bundle\/)[^/]+/;
const logPath = (p: string): string => p.replace(SECRET_PATH, '$1[redacted]');

export interface AppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Routes served before body parsing (the MCP endpoints parse their own bodies). */
  mcp?: Middleware;
  /** The REST dispatcher (openapi-backend). */
  rest: (ctx: Koa.ParameterizedContext) => Promise<void>;
  /** True once a graceful stop has begun: responses then ask clients to close the connection. */
  isStopping: () => boolean;
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
 * The Koa application: request id and error mapping outermost, then the MCP routes, then JSON
 * body parsing and the REST dispatcher as the catch-all.
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
    if (options.logger.isLevelEnabled('info')) {
      const ms = Math.round((Number(process.hrtime.bigint() - started) / 1e6) * 100) / 100;
      const mcp = ctx.state.mcp as McpAccess | undefined;
      if (mcp) {
        // The MCP access line: what was asked of which bundle, and how it went; no key, no arguments.
        options.logger.info(
          {
            requestId,
            endpoint: mcp.endpoint,
            bundle: mcp.bundle,
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

  if (options.mcp) app.use(options.mcp);

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
