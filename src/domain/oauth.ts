/**
 * The rules of Toolgate's own OAuth 2.1 authorization server (the one MCP clients use to reach
 * `/mcp/gateway` and a bundle through it): the scope, token shapes, PKCE, redirect-URI matching,
 * the resources a token may be bound to, and the seam the HTTP protocol endpoints call. Pure: no
 * database, no HTTP framework.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from './principal.js';

/** The one scope an MCP client asks for: use the person's MCP tools (the API-key scope of the same name). */
export const OAUTH_SCOPE = 'mcp';
export const OAUTH_SCOPES_SUPPORTED: readonly string[] = [OAUTH_SCOPE];

/** Token prefixes: tell an OAuth token from an API key before any lookup, and make leaked ones recognisable. */
export const ACCESS_TOKEN_PREFIX = 'tgoa_';
export const REFRESH_TOKEN_PREFIX = 'tgor_';
export const CODE_PREFIX = 'tgoc_';

/** A fresh random secret with a prefix (256 bits, base64url). */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** The stored form of a token or code: its SHA-256, hex. The secret itself is never stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** True when the token has the shape of a Toolgate OAuth access token. */
export function looksLikeAccessToken(token: string): boolean {
  return token.startsWith(ACCESS_TOKEN_PREFIX) && token.length > ACCESS_TOKEN_PREFIX.length + 20;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** True when `challenge` is a well-formed S256 code challenge (base64url of 32 bytes). */
export function validChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge (compared in constant time). */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** A private-use URI scheme (RFC 8252 §7.1): a reverse-domain or product name, never a web or script scheme. */
const PRIVATE_SCHEME = /^[a-z][a-z0-9+.-]*:$/;
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'ftp:', 'ws:', 'wss:']);

/** Why a redirect URI may not be registered, or undefined when it may. */
export function redirectUriProblem(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (u.hash || uri.includes('#')) return 'must not contain a fragment';
  if (u.protocol === 'https:') return u.username || u.password ? 'must not contain credentials' : undefined;
  if (u.protocol === 'http:') return LOOPBACK_HOSTS.has(u.hostname) ? undefined : 'http is allowed for loopback hosts only';
  if (FORBIDDEN_SCHEMES.has(u.protocol) || !PRIVATE_SCHEME.test(u.protocol)) return 'uses a scheme that is not allowed';
  return undefined;
}

/** True when the URI is an http loopback redirect (RFC 8252 §7.3), whose port may vary. */
export function isLoopbackRedirect(uri: string): boolean {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
  } catch {
    return false;
  }
}

/**
 * Whether a redirect URI in an authorization request matches a registered one: exactly, or, for
 * an http loopback redirect, exactly but for the port (native clients bind a free port at run time).
 */
export function redirectUriMatches(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  if (!isLoopbackRedirect(requested)) return false;
  const r = new URL(requested);
  return registered.some((candidate) => {
    if (!isLoopbackRedirect(candidate)) return false;
    const c = new URL(candidate);
    return c.hostname === r.hostname && c.pathname === r.pathname && c.search === r.search;
  });
}

/** The host shown on the consent page for a redirect URI (the scheme for private-use schemes). */
export function redirectHost(uri: string): string {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : u.protocol.slice(0, -1);
  } catch {
    return uri;
  }
}

/** What a token may reach, parsed from its resource (audience) URL relative to the public base URL. */
export type OAuthResource = { kind: 'gateway' } | { kind: 'bundle'; bundleId: string };

const BUNDLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The canonical resource URL of `/mcp/gateway` (or of one bundle through it) under a base URL. */
export function resourceUrl(base: string, resource: OAuthResource): string {
  const root = `${base.replace(/\/+$/, '')}/mcp/gateway`;
  return resource.kind === 'gateway' ? root : `${root}/bundles/${resource.bundleId}`;
}

/**
 * The resource an RFC 8707 `resource` value names under this base URL, or undefined when it names
 * none of Toolgate's protected resources. Compared after canonicalisation (lower-case scheme and
 * host, no trailing slash), so `HTTP://Host/mcp/gateway/` is the same resource.
 */
export function parseResource(base: string, value: string): OAuthResource | undefined {
  let u: URL;
  let b: URL;
  try {
    u = new URL(value);
    b = new URL(base);
  } catch {
    return undefined;
  }
  if (u.hash || u.search || u.username || u.password) return undefined;
  if (u.origin !== b.origin) return undefined;
  const basePath = b.pathname.replace(/\/+$/, '');
  const path = u.pathname.replace(/\/+$/, '');
  if (!path.startsWith(basePath)) return undefined;
  const rest = path.slice(basePath.length);
  if (rest === '/mcp/gateway') return { kind: 'gateway' };
  const m = /^\/mcp\/gateway\/bundles\/([^/]+)$/.exec(rest);
  return m && BUNDLE_ID.test(m[1]!) ? { kind: 'bundle', bundleId: m[1]! } : undefined;
}

/** How dynamic client registration (RFC 7591) is answered: open, held for an admin, or refused. */
export const CLIENT_REGISTRATION_POLICIES = ['open', 'admin_approval', 'off'] as const;
export type ClientRegistrationPolicy = (typeof CLIENT_REGISTRATION_POLICIES)[number];

/** An OAuth protocol error (RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 6750 §3.1) with its HTTP status. */
export class OAuthProtocolError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthProtocolError';
  }
}

/** The caller of a request authenticated by an OAuth access token. */
export interface OAuthCaller {
  readonly principal: Principal;
  readonly grantId: string;
  /** The resource the token is bound to (its audience). */
  readonly resource: string;
  readonly scopes: readonly string[];
}

/** A parsed request to the authorization endpoint (query parameters, single-valued). */
export type OAuthParams = Readonly<Record<string, string | undefined>>;

/** Where the authorization endpoint sends the browser. */
export type AuthorizeOutcome =
  /** To the client (an error the client must learn), or to the console's consent page. */
  | { redirect: string }
  /** A request that cannot be sent back to the client (unknown client, bad redirect_uri): shown to the person. */
  | { error: string; description: string };

/** A token endpoint answer (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * What the OAuth protocol endpoints (src/http/oauth-endpoints.ts) ask of the authorization server
 * (implemented by the OAuth server service). `base` is the public base URL of the request, which
 * the issuer and the resources are derived from.
 */
export interface OAuthServerApi {
  /** `GET /oauth/authorize`. */
  authorize(base: string, params: OAuthParams): Promise<AuthorizeOutcome>;
  /** `POST /oauth/token`: authorization_code and refresh_token grants. Throws OAuthProtocolError. */
  token(base: string, form: OAuthParams): Promise<TokenResponse>;
  /** `POST /oauth/revoke` (RFC 7009): always succeeds for a well-formed request. */
  revoke(form: OAuthParams): Promise<void>;
}

/**
 * What the OAuth protocol endpoints ask of dynamic client registration (implemented by the OAuth
 * client registration service).
 */
export interface OAuthRegistrationApi {
  /** `POST /oauth/register` (RFC 7591). Throws OAuthProtocolError. */
  register(body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Whether the registration endpoint is open, held for approval or off (for the metadata). */
  registrationPolicy(): ClientRegistrationPolicy;
}
