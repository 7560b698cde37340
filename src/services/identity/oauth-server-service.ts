/**
 * Toolgate's own OAuth 2.1 authorization server for its MCP endpoints (`/mcp/gateway`, and one
 * bundle through it at `/mcp/gateway/bundles/{bundle_id}`): the authorization-code flow with PKCE
 * (S256 only) and RFC 8707 resource binding, the console's consent decision, the token endpoint
 * (code redemption and refresh-token rotation with reuse detection), revocation (RFC 7009) and
 * the ending of connections, and the hot-path check of an access token on `/mcp/gateway`.
 * Clients register themselves in oauth-client-registration.ts (RFC 7591); people and admins see
 * and end connections, and admins manage clients, in connected-apps.ts.
 *
 * Tokens are opaque random strings stored as SHA-256 hashes (docs/adr/0013-own-oauth-authorization-server.md
 * says why not JWTs): the check reads them from a small in-memory cache, and a revocation or a
 * deactivation is announced on the change bus so every instance drops them before its next request.
 * Codes, tokens and verifiers never reach a log line, an activity entry or an error message.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { ForbiddenError, NotFoundError, ConflictError, GoneError } from '../../errors.js';
import { mayUseBundle } from '../../domain/bundle-access.js';
import {
  ACCESS_TOKEN_PREFIX,
  CODE_PREFIX,
  OAUTH_SCOPE,
  OAuthProtocolError,
  REFRESH_TOKEN_PREFIX,
  hashSecret,
  isLoopbackRedirect,
  looksLikeAccessToken,
  newSecret,
  parseResource,
  pkceMatches,
  redirectHost,
  redirectUriMatches,
  validChallenge,
  type AuthorizeOutcome,
  type OAuthCaller,
  type OAuthParams,
  type OAuthServerApi,
  type TokenResponse,
} from '../../domain/oauth.js';
import type { Principal } from '../../domain/principal.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../logger.js';
import type { ChangeBus } from '../../redis/change-bus.js';
import type { TeamMemberships } from '../../live/team-memberships.js';
import type { BundlesRegistry } from '../../live/bundles-registry.js';
import type { DbOAuthAuthorizationRow, DbOAuthGrantRow, OAuthStore } from '../../stores/oauth-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import { UnknownClientError, type OAuthClient, type OAuthClientDirectory } from './oauth-client-directory.js';

type AuthorizationRequestView = components['schemas']['OAuthAuthorizationRequest'];
type DecisionResult = components['schemas']['OAuthDecisionResult'];

/** How long a person has to decide on the consent page. */
const AUTHORIZATION_TTL_MS = 10 * 60_000;
/** How long an authorization code may be redeemed (RFC 6749 recommends at most 10 minutes). */
const CODE_TTL_MS = 60_000;
/** How long a checked access token is trusted from memory before its grant is read again. */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;
const MAX_PARAM = 2048;
const INVALID_TOKEN = 'invalid, expired or revoked access token';

export interface OAuthServerOptions {
  /** Lifetime of an access token, in seconds. */
  accessTokenTtlSeconds: number;
  /** Lifetime of a refresh token (and so of an unused connection), in seconds. */
  refreshTokenTtlSeconds: number;
}

interface CachedToken {
  readonly caller: OAuthCaller;
  readonly expiresAt: number;
  readonly loadedAt: number;
}

/** What a code redemption or a refresh came to: tokens, or the error to answer (and a grant it revoked). */
interface GrantOutcome {
  tokens?: TokenResponse;
  error?: string;
  revoked?: string;
  target?: boolean;
  scope?: boolean;
}

/** Raised by the access-token check: the gateway answers 401 with a challenge. */
export class InvalidAccessTokenError extends Error {
  constructor() {
    super(INVALID_TOKEN);
    this.name = 'InvalidAccessTokenError';
  }
}

/** See the file comment. */
export class OAuthServerService implements OAuthServerApi {
  private readonly cache = new Map<string, CachedToken>();
  private generation = 0;
  private readonly touched = new Map<string, Date>();

  constructor(
    private readonly deps: {
      store: OAuthStore;
      tx: Transactor;
      clients: OAuthClientDirectory;
      clock: Clock;
      bus: ChangeBus;
      activity: ActivityLog;
      registry: BundlesRegistry;
      /** The teams of each user (a bundle shared with a team is usable by its members). */
      memberships: Pick<TeamMemberships, 'teamsOf'>;
      /** The bundles a user's `/mcp/gateway` serves (their selection, or every usable bundle). */
      gatewayBundles: (user: Pick<Principal, 'userId' | 'role'>) => Promise<{ id: string; name: string }[]>;
      /** The per-minute budget of a connection (the key-style default), read on every request. */
      defaultRateLimitRpm: () => number;
      options: OAuthServerOptions;
      logger: Logger;
    },
  ) {
    deps.bus.subscribe((m) => {
      if (m.kind === 'oauth_grant') this.drop((c) => c.caller.grantId === m.grantId);
      else if (m.kind === 'oauth_token') this.dropHash(m.tokenHash);
      else if (m.kind === 'user') this.drop((c) => c.caller.principal.userId === m.userId);
    });
  }

  private timer: NodeJS.Timeout | undefined;

  /** Starts the housekeeping: last-use times written and expired tokens and requests deleted, every minute. */
  start(): void {
    this.timer ??= setInterval(() => {
      void this.flushUsage();
      this.purge().catch((err: unknown) =>
        this.deps.logger.warn({ reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' }, 'oauth purge failed'),
      );
    }, 60_000);
    this.timer.unref();
  }

  /** Stops the housekeeping and writes the buffered last-use times. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flushUsage();
  }

  // The authorization endpoint

  async authorize(base: string, params: OAuthParams): Promise<AuthorizeOutcome> {
    const issuer = base;
    const clientId = params.client_id;
    if (!clientId) return { error: 'invalid_request', description: 'client_id is required' };
    let client: OAuthClient;
    try {
      client = await this.deps.clients.resolve(clientId);
    } catch (err) {
      if (err instanceof UnknownClientError) return { error: 'invalid_client', description: err.message };
      throw err;
    }
    if (!client.active) return { error: 'unauthorized_client', description: 'this client is waiting for an administrator’s approval' };
    const redirectUri = params.redirect_uri;
    if (!redirectUri) return { error: 'invalid_request', description: 'redirect_uri is required' };
    if (redirectUri.length > MAX_PARAM || !redirectUriMatches(redirectUri, client.redirectUris))
      return { error: 'invalid_request', description: 'redirect_uri is not registered for this client' };
    // From here on the client is known and the redirect is safe: errors go back to the client.
    const state = params.state;
    const back = (error: string, description: string): AuthorizeOutcome => ({
      redirect: withParams(redirectUri, { error, error_description: description, state, iss: issuer }),
    });
    if (params.response_type !== 'code') return back('unsupported_response_type', 'only response_type=code is supported');
    if (params.code_challenge_method !== 'S256') return back('invalid_request', 'PKCE with code_challenge_method=S256 is required');
    if (!params.code_challenge || !validChallenge(params.code_challenge))
      return back('invalid_request', 'code_challenge is missing or malformed');
    if (state !== undefined && state.length > MAX_PARAM) return back('invalid_request', 'state is too long');
    if (!params.resource) return back('invalid_target', 'the resource parameter (RFC 8707) is required');
    const target = parseResource(base, params.resource);
    if (!target) return back('invalid_target', 'resource is not a protected resource of this server');
    if (target.kind === 'bundle' && !this.deps.registry.get(target.bundleId)) return back('invalid_target', 'no such bundle');
    const scope = requestedScope(params.scope);
    if (!scope) return back('invalid_scope', `the only scope offered is ${OAUTH_SCOPE}`);
    const now = this.deps.clock.now();
    const id = newSecret('').slice(0, 32);
    await this.deps.store.insertAuthorization({
      id,
      client_id: client.clientId,
      client_name: client.name,
      redirect_uri: redirectUri,
      scope,
      state: state ?? null,
      code_challenge: params.code_challenge,
      resource: canonical(params.resource),
      created_at: now,
      expires_at: new Date(now.getTime() + AUTHORIZATION_TTL_MS),
      user_id: null,
      decision: null,
      code_hash: null,
      code_expires_at: null,
      code_used_at: null,
      grant_id: null,
    });
    return { redirect: `${base}/oauth/consent?request=${encodeURIComponent(id)}` };
  }

  // The consent page (console, REST)

  /** What the consent page shows: who asks for what, and which of the person's bundles it reaches. */
  async describe(base: string, id: string, user: Principal): Promise<AuthorizationRequestView> {
    const row = await this.pending(id);
    const target = parseResource(base, row.resource);
    let client: OAuthClient | undefined;
    try {
      client = await this.deps.clients.resolve(row.client_id);
    } catch (err) {
      if (!(err instanceof UnknownClientError)) throw err;
    }
    if (!client) throw new GoneError('The client of this request is no longer registered', 'oauth_client_gone');
    let bundles: { id: string; name: string }[];
    if (target?.kind === 'bundle') {
      const bundle = this.deps.registry.get(target.bundleId);
      if (!bundle || !mayUseBundle({ ...user, teamIds: this.deps.memberships.teamsOf(user.userId) }, bundle))
        throw new ForbiddenError('You may not use the bundle this client asks for', 'bundle_not_allowed');
      bundles = [{ id: bundle.id, name: bundle.name }];
    } else bundles = await this.deps.gatewayBundles(user);
    return {
      id: row.id,
      client: { client_id: client.clientId, name: client.name, kind: client.kind, client_uri: client.clientUri },
      redirect_uri: row.redirect_uri,
      redirect_host: redirectHost(row.redirect_uri),
      loopback_redirect: isLoopbackRedirect(row.redirect_uri),
      scopes: row.scope.split(' '),
      resource: row.resource,
      resource_kind: target?.kind ?? 'gateway',
      bundles,
      expires_at: row.expires_at.toISOString(),
    };
  }

  /** The person's decision: approve (a grant and a code) or deny; answers where the browser goes next. */
  async decide(base: string, id: string, user: Principal, approve: boolean): Promise<DecisionResult> {
    const row = await this.pending(id);
    const issuer = base;
    if (!approve) {
      if (
        !(await this.deps.store.decide(id, {
          user_id: user.userId,
          decision: 'denied',
          code_hash: null,
          code_expires_at: null,
          grant_id: null,
        }))
      )
        throw new ConflictError('This request has already been decided', 'oauth_request_decided');
      return {
        redirect_to: withParams(row.redirect_uri, {
          error: 'access_denied',
          error_description: 'the person denied the request',
          state: row.state ?? undefined,
          iss: issuer,
        }),
      };
    }
    const target = parseResource(base, row.resource);
    if (target?.kind === 'bundle') {
      const bundle = this.deps.registry.get(target.bundleId);
      if (!bundle || !mayUseBundle({ ...user, teamIds: this.deps.memberships.teamsOf(user.userId) }, bundle))
        throw new ForbiddenError('You may not use the bundle this client asks for', 'bundle_not_allowed');
    }
    const code = newSecret(CODE_PREFIX);
    const now = this.deps.clock.now();
    const grantId = randomUUID();
    await this.deps.tx.transaction(async (stores) => {
      await stores.oauth.insertGrant({
        id: grantId,
        client_id: row.client_id,
        client_name: row.client_name,
        user_id: user.userId,
        resource: row.resource,
        scope: row.scope,
        created_at: now,
        last_used_at: null,
        revoked_at: null,
        revoked_reason: null,
      });
      const decided = await stores.oauth.decide(id, {
        user_id: user.userId,
        decision: 'approved',
        code_hash: hashSecret(code),
        code_expires_at: new Date(now.getTime() + CODE_TTL_MS),
        grant_id: grantId,
      });
      if (!decided) throw new ConflictError('This request has already been decided', 'oauth_request_decided');
      await this.deps.activity.record(stores, {
        action: 'oauth_grant.create',
        target: { type: 'oauth_grant', id: grantId, name: row.client_name },
        details: { client_id: row.client_id, resource: row.resource, scope: row.scope, user_id: user.userId },
      });
    });
    return { redirect_to: withParams(row.redirect_uri, { code, state: row.state ?? undefined, iss: issuer }) };
  }

  private async pending(id: string): Promise<DbOAuthAuthorizationRow> {
    const row = id.length <= 64 ? await this.deps.store.findAuthorization(id) : undefined;
    if (!row || row.expires_at.getTime() <= this.deps.clock.now().getTime())
      throw new NotFoundError('No such authorization request, or it has expired', 'oauth_request_not_found');
    if (row.decision) throw new ConflictError('This request has already been decided', 'oauth_request_decided');
    return row;
  }

  // The token endpoint

  async token(base: string, form: OAuthParams): Promise<TokenResponse> {
    const clientId = form.client_id;
    if (!clientId) throw new OAuthProtocolError('invalid_client', 'client_id is required (public clients authenticate with it alone)', 401);
    try {
      const client = await this.deps.clients.resolve(clientId);
      if (!client.active) throw new UnknownClientError('client not approved');
    } catch (err) {
      if (err instanceof UnknownClientError) throw new OAuthProtocolError('invalid_client', 'unknown client', 401);
      throw err;
    }
    if (form.grant_type === 'authorization_code') return this.redeemCode(base, clientId, form);
    if (form.grant_type === 'refresh_token') return this.refresh(base, clientId, form);
    throw new OAuthProtocolError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }

  private async redeemCode(base: string, clientId: string, form: OAuthParams): Promise<TokenResponse> {
    const code = form.code;
    if (!code || !code.startsWith(CODE_PREFIX) || code.length > 100)
      throw new OAuthProtocolError('invalid_grant', 'invalid authorization code');
    if (!form.code_verifier) throw new OAuthProtocolError('invalid_request', 'code_verifier is required');
    const now = this.deps.clock.now();
    const outcome = await this.deps.tx.transaction(async (stores): Promise<GrantOutcome> => {
      const row = await stores.oauth.findByCodeForUpdate(hashSecret(code));
      if (!row || row.client_id !== clientId || !row.grant_id) return { error: 'invalid authorization code' };
      if (row.code_used_at) {
        // A code used twice was stolen or replayed: the connection it opened is ended (RFC 6749 §4.1.2).
        await stores.oauth.revokeGrant(row.grant_id, now, 'code_reuse');
        await this.deps.activity.record(stores, {
          action: 'oauth_grant.revoke',
          target: { type: 'oauth_grant', id: row.grant_id, name: row.client_name },
          details: { reason: 'code_reuse', client_id: row.client_id },
          actor: { userId: row.user_id, name: null },
        });
        return { error: 'authorization code already used', revoked: row.grant_id };
      }
      if (!row.code_expires_at || row.code_expires_at.getTime() <= now.getTime()) return { error: 'authorization code expired' };
      if (form.redirect_uri !== row.redirect_uri) return { error: 'redirect_uri does not match the authorization request' };
      if (!pkceMatches(form.code_verifier!, row.code_challenge)) return { error: 'PKCE verification failed' };
      if (form.resource !== undefined && canonical(form.resource) !== row.resource)
        return { error: 'resource does not match the authorization request', target: true };
      await stores.oauth.useCode(row.id, now);
      const grant = await stores.oauth.findGrant(row.grant_id);
      if (!grant || grant.revoked_at) return { error: 'the connection was revoked' };
      return { tokens: await this.issue(stores.oauth, grant.id, grant.scope, now) };
    });
    if (outcome.revoked) this.announceGrant(outcome.revoked);
    if (outcome.tokens) return outcome.tokens;
    throw new OAuthProtocolError(outcome.target ? 'invalid_target' : 'invalid_grant', outcome.error ?? 'invalid grant');
  }

  private async refresh(base: string, clientId: string, form: OAuthParams): Promise<TokenResponse> {
    const token = form.refresh_token;
    if (!token || !token.startsWith(REFRESH_TOKEN_PREFIX) || token.length > 100)
      throw new OAuthProtocolError('invalid_grant', 'invalid refresh token');
    const hash = hashSecret(token);
    const now = this.deps.clock.now();
    const outcome = await this.deps.tx.transaction(async (stores): Promise<GrantOutcome> => {
      const found = await stores.oauth.findToken(hash);
      if (!found || found.token.kind !== 'refresh' || found.grant.client_id !== clientId) return { error: 'invalid refresh token' };
      const { grant, user } = found;
      if (grant.revoked_at || !user.is_active) return { error: 'the connection was revoked' };
      if (!(await stores.oauth.useToken(hash, now))) {
        // A rotated refresh token came back: whoever holds the family now, it is ended.
        await stores.oauth.revokeGrant(grant.id, now, 'refresh_token_reuse');
        await this.deps.activity.record(stores, {
          action: 'oauth_grant.revoke',
          target: { type: 'oauth_grant', id: grant.id, name: grant.client_name },
          details: { reason: 'refresh_token_reuse', client_id: grant.client_id, user_id: grant.user_id },
        });
        return { error: 'refresh token already used; the connection is revoked', revoked: grant.id };
      }
      if (found.token.expires_at.getTime() <= now.getTime()) return { error: 'refresh token expired' };
      if (form.resource !== undefined && canonical(form.resource) !== grant.resource)
        return { error: 'resource does not match the grant', target: true };
      let scope = grant.scope;
      if (form.scope !== undefined) {
        const asked = requestedScope(form.scope);
        if (!asked || !asked.split(' ').every((s) => grant.scope.split(' ').includes(s)))
          return { error: 'scope exceeds the grant', scope: true };
        scope = asked;
      }
      return { tokens: await this.issue(stores.oauth, grant.id, scope, now) };
    });
    if (outcome.revoked) this.announceGrant(outcome.revoked);
    if (outcome.tokens) return outcome.tokens;
    const error = outcome.target ? 'invalid_target' : outcome.scope ? 'invalid_scope' : 'invalid_grant';
    throw new OAuthProtocolError(error, outcome.error ?? 'invalid grant');
  }

  private async issue(store: OAuthStore, grantId: string, scope: string, now: Date): Promise<TokenResponse> {
    const { accessTokenTtlSeconds, refreshTokenTtlSeconds } = this.deps.options;
    const access = newSecret(ACCESS_TOKEN_PREFIX);
    const refresh = newSecret(REFRESH_TOKEN_PREFIX);
    await store.insertTokens([
      {
        token_hash: hashSecret(access),
        grant_id: grantId,
        kind: 'access',
        created_at: now,
        expires_at: new Date(now.getTime() + accessTokenTtlSeconds * 1000),
        used_at: null,
      },
      {
        token_hash: hashSecret(refresh),
        grant_id: grantId,
        kind: 'refresh',
        created_at: now,
        expires_at: new Date(now.getTime() + refreshTokenTtlSeconds * 1000),
        used_at: null,
      },
    ]);
    return { access_token: access, token_type: 'Bearer', expires_in: accessTokenTtlSeconds, refresh_token: refresh, scope };
  }

  // Revocation (RFC 7009)

  async revoke(form: OAuthParams): Promise<void> {
    const token = form.token;
    if (!token || token.length > 100) return;
    const hash = hashSecret(token);
    const found = await this.deps.store.findToken(hash);
    // RFC 7009: an unknown token, or one of another client, is answered 200 all the same.
    if (!found || (form.client_id !== undefined && form.client_id !== found.grant.client_id)) return;
    if (found.token.kind === 'refresh') {
      await this.endGrant(found.grant, 'revoked_by_client');
    } else {
      await this.deps.store.deleteToken(hash);
      this.dropHash(hash);
      this.deps.bus.publish({ kind: 'oauth_token', tokenHash: hash });
    }
  }

  // Ending a connection (RFC 7009 revocation, and the connected-apps lists)

  /** Revokes a grant (the connection ends), with its activity entry; its tokens stop working on every instance. */
  async endGrant(grant: DbOAuthGrantRow, reason: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.tx.transaction(async (stores) => {
      if (!(await stores.oauth.revokeGrant(grant.id, now, reason))) return;
      await this.deps.activity.record(stores, {
        action: 'oauth_grant.revoke',
        target: { type: 'oauth_grant', id: grant.id, name: grant.client_name },
        details: { reason, client_id: grant.client_id, user_id: grant.user_id },
      });
    });
    this.announceGrant(grant.id);
  }

  /** Drops a revoked grant's tokens from this instance's cache and tells the other instances. */
  announceGrant(grantId: string): void {
    this.drop((c) => c.caller.grantId === grantId);
    this.deps.bus.publish({ kind: 'oauth_grant', grantId });
  }

  // The access-token check (the `/mcp/gateway` hot path)

  /**
   * The caller an access token stands for. Every failure (malformed, unknown, expired, revoked,
   * owner deactivated) is the same InvalidAccessTokenError. The audience is checked by the caller
   * against the resource the request reached.
   */
  async authenticate(token: string): Promise<OAuthCaller> {
    if (!looksLikeAccessToken(token) || token.length > 100) throw new InvalidAccessTokenError();
    const hash = hashSecret(token);
    const nowMs = this.deps.clock.now().getTime();
    let entry = this.cache.get(hash);
    if (!entry || nowMs - entry.loadedAt >= CACHE_TTL_MS) {
      const generation = this.generation;
      const found = await this.deps.store.findToken(hash);
      if (!found || found.token.kind !== 'access' || found.grant.revoked_at || !found.user.is_active) {
        this.cache.delete(hash);
        throw new InvalidAccessTokenError();
      }
      const { grant, user } = found;
      const rpm = this.deps.defaultRateLimitRpm;
      const principal: Principal = Object.freeze({
        userId: user.id,
        email: user.email,
        name: user.name,
        role: user.role,
        via: 'oauth' as const,
        apiKeyId: null,
        sessionId: `oauth:${grant.id}`,
        oauthClientId: grant.client_id,
        scopes: Object.freeze(grant.scope.split(' ')),
        get rateLimitRpm() {
          return rpm();
        },
      });
      entry = {
        caller: { principal, grantId: grant.id, resource: grant.resource, scopes: principal.scopes },
        expiresAt: found.token.expires_at.getTime(),
        loadedAt: nowMs,
      };
      if (generation === this.generation) {
        if (this.cache.size >= CACHE_MAX) this.cache.clear();
        this.cache.set(hash, entry);
      }
    }
    if (entry.expiresAt <= nowMs) throw new InvalidAccessTokenError();
    this.touched.set(entry.caller.grantId, new Date(nowMs));
    return entry.caller;
  }

  /** Writes the buffered last-use times of connections (housekeeping calls it). */
  async flushUsage(): Promise<void> {
    if (!this.touched.size) return;
    const batch = [...this.touched].map(([id, at]) => ({ id, at }));
    this.touched.clear();
    await this.deps.store
      .touchGrants(batch)
      .catch((err: unknown) =>
        this.deps.logger.warn({ reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' }, 'oauth usage flush failed'),
      );
  }

  /** Deletes expired tokens and authorization requests (housekeeping). */
  async purge(): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.deleteExpiredTokens(now);
    await this.deps.store.deleteExpiredAuthorizations(now);
  }

  private drop(which: (entry: CachedToken) => boolean): void {
    this.generation += 1;
    for (const [hash, entry] of this.cache) if (which(entry)) this.cache.delete(hash);
  }

  private dropHash(hash: string): void {
    this.generation += 1;
    this.cache.delete(hash);
  }
}

/** The scope string to grant for a requested one, or undefined when it asks for something not offered. */
function requestedScope(scope: string | undefined): string | undefined {
  // offline_access is accepted and ignored: every grant gets a rotating refresh token.
  const parts = (scope ?? OAUTH_SCOPE).split(' ').filter((s) => s && s !== 'offline_access');
  if (parts.length === 0) return OAUTH_SCOPE;
  return parts.every((s) => s === OAUTH_SCOPE) ? OAUTH_SCOPE : undefined;
}

/** A resource URL in its canonical form (as stored and compared). */
function canonical(value: string): string {
  try {
    const u = new URL(value);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return value;
  }
}

/** `uri` with query parameters added (undefined ones left out). */
function withParams(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}
