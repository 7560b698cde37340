import type { ParameterizedContext } from 'koa';
import { OpenAPIBackend, type Context as OabContext, type Request as OabRequest } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject } from 'ajv';
import {
  AppError,
  MethodNotAllowedError,
  NotImplementedError,
  NotFoundError,
  RequestValidationError,
  UnauthorizedError,
  ForbiddenError,
} from '../errors.js';
import { OPERATIONS, type MinRole } from '../generated/operation-index.js';
import { roleAtLeast, type Principal } from '../domain/principal.js';
import { runAsActor } from '../services/actor-context.js';
import type { Logger } from '../logger.js';
import { isSseStream, type CookieOptions, type HandlerMap, type HandlerRequest } from './handler-types.js';
import { isCrossSiteWrite } from './cross-site.js';
import { sendEventStream } from './send-event-stream.js';
import { nulCharacterIssues, toValidationIssues } from './validation-errors.js';

// ajv-formats ships CommonJS with a default export; normalise across module systems.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** Resolves the caller of a request from its credentials; `null` when none is presented. */
export interface Authenticator {
  /** Bearer token from the Authorization header. Throws UnauthorizedError for a bad credential. */
  fromBearer(token: string, ip: string): Promise<Principal>;
  /** Value of the `access_token` cookie. Throws UnauthorizedError for a bad credential. */
  fromCookie(token: string, ip: string): Promise<Principal>;
}

/**
 * Checks an authenticated caller's request budget; throws RateLimitedError past it. May return
 * headers (`RateLimit-*`) to set on the response.
 */
export type RateLimitCheck = (principal: Principal) => Promise<void | Record<string, string>>;

/** Further checks on an authenticated caller after the role check (API key scopes); throws ForbiddenError. */
export type AuthorizeCheck = (principal: Principal, operation: { operationId: string; method: string; path: string }) => void;

export interface RestApiOptions {
  definition: string;
  handlers: HandlerMap;
  authenticator: Authenticator;
  rateLimit?: RateLimitCheck;
  authorize?: AuthorizeCheck;
  /**
   * Origins (besides the request's own) from which a browser may send a state-changing request
   * authenticated by the session cookie: the public URL's and the general settings' allowed
   * origins. Read on every such request, so a settings change applies at once.
   */
  trustedOrigins?: () => ReadonlySet<string>;
  /** Where a failure in the middle of an event stream is logged (the response is already sent). */
  logger?: Pick<Logger, 'error'>;
}

type KoaCtx = ParameterizedContext;

/**
 * openapi-backend checks the document with openapi-schema-validator, which knows OpenAPI 3.0
 * only and rejects every 3.1 construct. The contract is linted as 3.1 by Redocly in CI; at boot
 * we only insist on the version, and the ajv (2020-12) validators still compile from the document.
 */
class OpenAPI31Backend extends OpenAPIBackend {
  override validateDefinition() {
    const version = (this.document as { openapi?: string }).openapi ?? '';
    if (!/^3\.1\./.test(version)) throw new Error(`openapi.yaml must be OpenAPI 3.1, found ${version || 'no version'}`);
    return this.document;
  }
}
const MIN_ROLE = new Map<string, MinRole>(OPERATIONS.map((o) => [o.operationId, o.minRole]));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match?.[1];
}

/** The JSON text of a request body, as koa-bodyparser kept it; undefined when there was none. */
function rawBodyOf(ctx: KoaCtx): string | undefined {
  return (ctx.request as unknown as { rawBody?: string }).rawBody || undefined;
}

/**
 * The request-wide rules of the validation step that the contract's schemas cannot state: no
 * NUL character in any parameter or body string (PostgreSQL cannot store it).
 */
function nulIssues(c: OabContext, ctx: KoaCtx) {
  const rawBody = rawBodyOf(ctx);
  return nulCharacterIssues({ path: c.request.params, query: c.request.query, body: rawBody ? c.request.requestBody : undefined }, rawBody);
}

/** Result of a security handler: the principal, or the reason it could not be established. */
type SecurityResult = Principal | { error: unknown } | null | undefined;

function isPrincipal(r: SecurityResult): r is Principal {
  return !!r && typeof r === 'object' && 'userId' in r;
}

/**
 * Builds the REST dispatcher: openapi-backend validates each request against openapi.yaml and
 * routes it by operationId. Order per request: route (404/405) → authenticate (401) → role (403)
 * → rate limit (429) → validate (422) → handler. Handlers return `{status, body}`; thrown domain
 * errors are mapped by the caller's error middleware.
 */
export async function createRestApi(options: RestApiOptions): Promise<(ctx: KoaCtx) => Promise<void>> {
  const api = new OpenAPI31Backend({
    definition: options.definition,
    strict: true,
    validate: true,
    // Validators compile on an operation's first request instead of all at boot (with response
    // validators we never use): start-up drops from ~10 s to ~1 s; strict handler checks stay.
    quick: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, useDefaults: true, verbose: false, strict: false },
    customizeAjv: (_ajv, ajvOpts) => {
      const ajv = new Ajv2020({ ...ajvOpts, strict: false, allErrors: true, useDefaults: true });
      addFormats(ajv);
      return ajv as never;
    },
  });

  const authenticate = async (c: OabContext, ctx: KoaCtx, kind: 'bearer' | 'cookie'): Promise<Principal | null> => {
    if (kind === 'bearer') {
      const token = bearerToken(ctx.headers.authorization);
      return token ? options.authenticator.fromBearer(token, ctx.ip) : null;
    }
    const cookie = c.request.cookies?.access_token ?? ctx.cookies.get('access_token');
    return typeof cookie === 'string' && cookie ? options.authenticator.fromCookie(cookie, ctx.ip) : null;
  };
  api.registerSecurityHandler('BearerAuth', (c, ctx: KoaCtx) => authenticate(c, ctx, 'bearer'));
  api.registerSecurityHandler('CookieAuth', (c, ctx: KoaCtx) => authenticate(c, ctx, 'cookie'));

  api.register({
    // The route of the request, for the metrics: the operationId, never the raw path.
    postRoutingHandler: (c, ctx: KoaCtx) => {
      if (c.operation?.operationId) ctx.state.route = c.operation.operationId;
    },
    notFound: () => {
      throw new NotFoundError('No such path');
    },
    methodNotAllowed: (c) => {
      const allowed = METHODS.filter((m) => api.router.matchOperation({ method: m, path: c.request.path, headers: {} }, false)).map((m) =>
        m.toUpperCase(),
      );
      throw new MethodNotAllowedError(allowed);
    },
    postSecurityHandler: async (c, ctx: KoaCtx) => {
      const minRole = MIN_ROLE.get(c.operation.operationId ?? '') ?? 'owner';
      if (minRole === 'public' || minRole === 'bundle_key') return;
      const results = Object.values(c.security ?? {}) as SecurityResult[];
      const principal = results.find(isPrincipal);
      if (!principal) {
        // A rejected credential says why (bad key, expired...); an absent one asks for one.
        const failure = results.map((r) => (r && typeof r === 'object' && 'error' in r ? r.error : undefined)).find(Boolean);
        if (failure instanceof AppError) throw failure;
        if (failure) throw failure;
        throw new UnauthorizedError('Authentication required: send an API key as a Bearer token or the access_token cookie');
      }
      if (
        c.security?.CookieAuth === principal &&
        c.security?.BearerAuth !== principal &&
        isCrossSiteWrite(ctx.method, ctx.headers, `${ctx.protocol}://${ctx.host}`, options.trustedOrigins?.() ?? new Set())
      ) {
        throw new ForbiddenError(
          'Cross-site request refused: this origin may not change anything with the session cookie',
          'cross_site_request',
        );
      }
      if (!roleAtLeast(principal.role, minRole)) {
        throw new ForbiddenError(`This operation needs the ${minRole} role or higher`);
      }
      options.authorize?.(principal, { operationId: c.operation.operationId ?? '', method: c.operation.method, path: c.operation.path });
      ctx.state.principal = principal;
      if (options.rateLimit) {
        const headers = await options.rateLimit(principal);
        if (headers) ctx.set(headers);
      }
    },
    unauthorizedHandler: () => {
      throw new UnauthorizedError();
    },
    validationFail: (c, ctx: KoaCtx) => {
      const errors = (c.validation.errors ?? []) as ErrorObject[];
      const parameters = {
        path: c.request.params,
        query: c.request.query,
        header: c.request.headers,
        cookie: c.request.cookies,
        requestBody: c.request.requestBody,
      };
      throw new RequestValidationError([...toValidationIssues(errors, parameters), ...nulIssues(c, ctx)]);
    },
    // Runs once the contract's validators passed: the rules no schema states (no NUL character).
    preOperationHandler: (c, ctx: KoaCtx) => {
      const issues = nulIssues(c, ctx);
      if (issues.length) throw new RequestValidationError(issues);
    },
  });

  for (const [operationId, handler] of Object.entries(options.handlers) as [keyof HandlerMap, HandlerMap[keyof HandlerMap]][]) {
    api.register(operationId, async (c: OabContext, ctx: KoaCtx) => {
      const controller = new AbortController();
      // The response's `close` tells a client that went away (the request's fires as soon as its
      // body has been read, since Node 16): the connection closed before the answer was complete.
      ctx.res.once('close', () => {
        if (!ctx.res.writableFinished) controller.abort();
      });
      const req: HandlerRequest<typeof operationId> = {
        operationId,
        params: (c.request.params ?? {}) as never,
        query: (c.request.query ?? {}) as never,
        body: c.request.requestBody as never,
        headers: ctx.headers,
        cookies: (c.request.cookies ?? {}) as Record<string, string>,
        principal: (ctx.state.principal as Principal | undefined) ?? null,
        requestId: ctx.state.requestId as string,
        ip: ctx.ip,
        signal: controller.signal,
        raw: {
          setCookie: (name: string, value: string, opts: CookieOptions) => {
            ctx.cookies.set(name, value, { ...opts, overwrite: true });
          },
        },
      };
      const run = handler as (r: typeof req) => Promise<{ status: number; body: unknown; headers?: Record<string, string | string[]> }>;
      const respond = async () => {
        const result = await run(req);
        if (isSseStream(result.body)) {
          await sendEventStream(ctx, result.status, result.headers ?? {}, result.body, controller.signal, options.logger);
          return;
        }
        reply(ctx, result);
      };
      // The signed-in user is the actor of whatever the operation records in the activity log (a
      // stream's events are produced while it is sent, so sending is inside the actor's context too).
      const p = req.principal;
      await (p ? runAsActor({ userId: p.userId, name: p.name || p.email }, respond) : respond());
    });
  }
  // MCP operations are served by src/mcp ahead of this dispatcher; reaching one here means the
  // MCP router is not mounted in this build, which is a 501, never a silent success.
  for (const op of OPERATIONS) {
    if (op.transport !== 'mcp') continue;
    api.register(op.operationId, () => {
      throw new NotImplementedError(`${op.operationId} is not available in this version of Toolgate yet`);
    });
  }
  const known = new Set<string>(OPERATIONS.map((o) => o.operationId));
  const extra = Object.keys(options.handlers).filter((id) => !known.has(id));
  if (extra.length) throw new Error(`handlers for operations not in the contract: ${extra.join(', ')}`);

  await api.init();

  return async (ctx: KoaCtx) => {
    const request: OabRequest = {
      method: ctx.method,
      path: withLiteralStrayPercents(ctx.path),
      query: ctx.querystring,
      headers: ctx.headers as OabRequest['headers'],
      // koa-bodyparser leaves `{}` when there was no body; the validator must see "no body".
      body: rawBodyOf(ctx) ? (ctx.request as unknown as { body?: unknown }).body : undefined,
    };
    await api.handleRequest(request, ctx);
  };
}

/**
 * The path with every segment that is not valid percent-encoding (`%ff%fe`, a lone `%`) taken
 * literally: its `%` signs escaped as `%25`. The router decodes path parameters and would throw on
 * such a segment before anything else ran; taken literally, the request goes through the usual
 * order (authentication, then validation) and the parameter is refused like any other bad value
 * (a 422 naming it), or the path is unknown (404). Well-formed paths are returned unchanged.
 */
export function withLiteralStrayPercents(path: string): string {
  if (!path.includes('%')) return path;
  return path
    .split('/')
    .map((segment) => {
      if (!segment.includes('%')) return segment;
      try {
        decodeURIComponent(segment);
        return segment;
      } catch {
        return segment.replaceAll('%', '%25');
      }
    })
    .join('/');
}

/** Writes a handler's JSON (or empty) answer through Koa. */
function reply(ctx: KoaCtx, result: { status: number; body: unknown; headers?: Record<string, string | string[]> }): void {
  ctx.status = result.status;
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  if (result.status !== 204 && result.body !== undefined) ctx.body = result.body;
  else if (result.status === 204) ctx.body = null;
  else {
    // A bodiless non-204 (a redirect): an empty body, or Koa would send the status text
    // (a null body would turn the status into 204).
    ctx.body = '';
    ctx.remove('Content-Type');
  }
}
