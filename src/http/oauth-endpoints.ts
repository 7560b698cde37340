/**
 * The OAuth protocol endpoints of Toolgate's own authorization server for its MCP endpoints. They
 * are not REST operations (form bodies, redirects, the OAuth error shape), so they are served by
 * this middleware ahead of the JSON body parser:
 *
 * - `GET /.well-known/oauth-protected-resource/mcp/gateway` (RFC 9728), the root form
 *   `/.well-known/oauth-protected-resource` (the same document: the fallback clients try), and
 *   `/.well-known/oauth-protected-resource/mcp/gateway/bundles/{bundle_id}` for one bundle;
 * - `GET /.well-known/oauth-authorization-server` (RFC 8414) and `/.well-known/openid-configuration`;
 * - `GET /oauth/authorize`, `POST /oauth/token`, `POST /oauth/revoke` (RFC 7009), `POST /oauth/register` (RFC 7591);
 * - `GET /oauth/jwks`: Toolgate's public signing keys (RFC 7517), which verify the subject tokens
 *   it presents to upstream authorization servers in a token exchange (RFC 8693).
 *
 * The consent page itself (`/oauth/consent`) is the console's. Codes and tokens travel only in the
 * redirect to the client and the token response: the access log records paths without queries,
 * and nothing here logs a body.
 */
import type { Middleware, ParameterizedContext } from 'koa';
import {
  OAUTH_SCOPES_SUPPORTED,
  OAuthProtocolError,
  resourceUrl,
  type OAuthParams,
  type OAuthRegistrationApi,
  type OAuthResource,
  type OAuthServerApi,
} from '../domain/oauth.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface OAuthEndpointsDeps {
  api: OAuthServerApi;
  /** Dynamic client registration (`/oauth/register`, and whether the metadata offers it). */
  registration: OAuthRegistrationApi;
  /** The public base URL for a request (the issuer, and the base of every resource). */
  base: (headers: Headers) => string;
  /** Whether a bundle exists (its resource metadata is served only then). */
  hasBundle: (bundleId: string) => boolean;
  /** Toolgate's public signing keys (the JWKS); absent: no `/oauth/jwks`. */
  jwks?: () => Promise<unknown>;
}

const PRM = '/.well-known/oauth-protected-resource';
const BUNDLE_PRM = /^\/\.well-known\/oauth-protected-resource\/mcp\/gateway\/bundles\/([A-Za-z0-9_-]{1,64})$/;
const AS_METADATA = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
const MAX_BODY = 64 * 1024;

/** The protected resource metadata URL of a resource (what a 401 challenge points to). */
export function resourceMetadataUrl(base: string, resource: OAuthResource): string {
  const url = new URL(resourceUrl(base, resource));
  return `${url.origin}${PRM}${url.pathname}`;
}

/** RFC 9728 metadata of one resource. */
function protectedResourceMetadata(base: string, resource: OAuthResource): Record<string, unknown> {
  return {
    resource: resourceUrl(base, resource),
    authorization_servers: [base],
    scopes_supported: OAUTH_SCOPES_SUPPORTED,
    bearer_methods_supported: ['header'],
    resource_name: resource.kind === 'gateway' ? 'Toolgate MCP gateway' : `Toolgate bundle ${resource.bundleId}`,
  };
}

/** RFC 8414 metadata (also served as OpenID discovery: the same issuer and endpoints). */
function authorizationServerMetadata(base: string, registrationApi: OAuthRegistrationApi, jwks: boolean): Record<string, unknown> {
  const registration = registrationApi.registrationPolicy() !== 'off';
  return {
    issuer: base,
    ...(jwks ? { jwks_uri: `${base}/oauth/jwks` } : {}),
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    ...(registration ? { registration_endpoint: `${base}/oauth/register` } : {}),
    scopes_supported: OAUTH_SCOPES_SUPPORTED,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** Escapes text for HTML. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Reads a small request body as text (the token, revocation and registration endpoints). */
async function readBody(ctx: ParameterizedContext): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new OAuthProtocolError('invalid_request', 'request body too large', 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Single-valued parameters (RFC 6749 §3.1: a repeated parameter is an error). */
function singleValued(params: URLSearchParams): OAuthParams {
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    if (Object.hasOwn(out, k)) throw new OAuthProtocolError('invalid_request', `parameter ${k} is repeated`);
    out[k] = v;
  }
  return out;
}

async function formBody(ctx: ParameterizedContext): Promise<OAuthParams> {
  if (!ctx.is('application/x-www-form-urlencoded'))
    throw new OAuthProtocolError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  return singleValued(new URLSearchParams(await readBody(ctx)));
}

function json(ctx: ParameterizedContext, status: number, body: unknown): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.body = body;
}

function oauthError(ctx: ParameterizedContext, err: OAuthProtocolError): void {
  if (err.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="toolgate", error="invalid_client"');
  json(ctx, err.status, { error: err.error, error_description: err.description });
}

/** Browser-based MCP clients read metadata and call these endpoints cross-origin; no cookie is ever used. */
function cors(ctx: ParameterizedContext): void {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Headers', 'authorization, content-type, mcp-protocol-version');
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  ctx.set('Access-Control-Max-Age', '600');
}

/** The middleware serving the endpoints above; every other path passes on. */
export function oauthEndpoints(deps: OAuthEndpointsDeps): Middleware {
  const { api, registration } = deps;
  return async (ctx, next) => {
    const path = ctx.path;
    if (!path.startsWith('/.well-known/') && !path.startsWith('/oauth/')) return next();
    const base = deps.base(ctx.headers);
    const get = ctx.method === 'GET' || ctx.method === 'HEAD';

    let resource: OAuthResource | undefined;
    if (path === PRM || path === `${PRM}/mcp/gateway`) resource = { kind: 'gateway' };
    else {
      const m = BUNDLE_PRM.exec(path);
      if (m && deps.hasBundle(m[1]!)) resource = { kind: 'bundle', bundleId: m[1]! };
    }
    const known =
      resource || AS_METADATA.has(path) || ['/oauth/authorize', '/oauth/token', '/oauth/revoke', '/oauth/register'].includes(path);
    if (path === '/oauth/jwks' && deps.jwks) {
      if (!get) return methodNotAllowed(ctx, 'GET');
      cors(ctx);
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.status = 200;
      ctx.body = await deps.jwks();
      return;
    }
    if (!known) return next();
    if (path !== '/oauth/authorize') cors(ctx);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    if (resource || AS_METADATA.has(path)) {
      if (!get) return methodNotAllowed(ctx, 'GET');
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.status = 200;
      ctx.body = resource
        ? protectedResourceMetadata(base, resource)
        : authorizationServerMetadata(base, registration, deps.jwks !== undefined);
      return;
    }
    try {
      switch (path) {
        case '/oauth/authorize': {
          if (!get) return methodNotAllowed(ctx, 'GET');
          const outcome = await api.authorize(base, singleValued(new URLSearchParams(ctx.querystring)));
          if ('redirect' in outcome) {
            ctx.status = 302;
            ctx.set('Location', outcome.redirect);
            ctx.set('Referrer-Policy', 'no-referrer');
            ctx.body = '';
            return;
          }
          ctx.status = 400;
          ctx.type = 'text/html; charset=utf-8';
          ctx.set('Content-Security-Policy', "default-src 'none'");
          ctx.body = `<!doctype html><meta charset="utf-8"><title>Authorization request refused</title><h1>This application cannot be authorized</h1><p>${html(outcome.error)}: ${html(outcome.description)}</p>`;
          return;
        }
        case '/oauth/token': {
          if (ctx.method !== 'POST') return methodNotAllowed(ctx, 'POST');
          json(ctx, 200, await api.token(base, await formBody(ctx)));
          return;
        }
        case '/oauth/revoke': {
          if (ctx.method !== 'POST') return methodNotAllowed(ctx, 'POST');
          await api.revoke(await formBody(ctx));
          json(ctx, 200, {});
          return;
        }
        case '/oauth/register': {
          if (ctx.method !== 'POST') return methodNotAllowed(ctx, 'POST');
          if (!ctx.is('application/json')) throw new OAuthProtocolError('invalid_client_metadata', 'the body must be application/json');
          let body: unknown;
          try {
            body = JSON.parse(await readBody(ctx));
          } catch (err) {
            if (err instanceof OAuthProtocolError) throw err;
            throw new OAuthProtocolError('invalid_client_metadata', 'the body is not valid JSON');
          }
          const answer = await registration.register(body);
          json(ctx, answer.status, answer.body);
          return;
        }
      }
    } catch (err) {
      if (err instanceof OAuthProtocolError) return oauthError(ctx, err);
      throw err;
    }
  };
}

function methodNotAllowed(ctx: ParameterizedContext, allow: string): void {
  ctx.set('Allow', `${allow}, OPTIONS`);
  json(ctx, 405, { error: 'invalid_request', error_description: `use ${allow}` });
}
