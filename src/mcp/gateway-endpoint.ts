import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import type { CatalogView } from '../domain/catalog.js';
import type { Principal } from '../domain/principal.js';
import { RateLimitedError, UnauthorizedError } from '../errors.js';
import { isConnectionError } from '../lib/database-errors.js';
import type { Logger } from '../logger.js';
import { hashKey } from '../domain/api-key-format.js';
import { OAUTH_SCOPE, hashSecret, looksLikeAccessToken, resourceUrl, type OAuthCaller, type OAuthResource } from '../domain/oauth.js';
import { mayUseBundle } from '../domain/bundle-access.js';
import type { BundlesRegistry, LiveBundle } from '../live/bundles-registry.js';
import type { TeamMemberships } from '../live/team-memberships.js';
import type { ToolPolicy } from '../live/tool-policy.js';
import type { ChangeBus } from '../redis/change-bus.js';
import type { components } from '../generated/openapi.js';
import { rateLimitHeaders, type RateLimitState } from '../redis/rate-limiter.js';
import type { BundleViews } from './bundle-view.js';
import { GatewayView, type GatewaySearcher } from './gateway-view.js';
import { RpcCode } from './protocol.js';
import type { Session } from './sessions.js';
import { header, sendRpcError } from './transport/responses.js';
import type { McpAccess, McpResolution, McpRoute } from './transport/route.js';
import type { McpTransport } from './transport/router.js';

/** A user's `/mcp/gateway` settings, as the contract defines them. */
type GatewaySettingsView = components['schemas']['GatewaySettings'];

export interface GatewayEndpointDeps {
  core: McpTransport;
  registry: BundlesRegistry;
  catalog: CatalogView;
  /** The bundle views compiler shared with the bundle route: one compiled view per bundle. */
  views: BundleViews;
  /** The hot-path API key check (cached; revocations and deactivations invalidate it at once). */
  auth: { authenticate(token: string, ip?: string): Promise<Principal> };
  /**
   * The check of OAuth access tokens issued by Toolgate's own authorization server (rejects with
   * any error for an unknown, expired or revoked token, or a deactivated owner).
   */
  oauth?: { authenticate(token: string): Promise<OAuthCaller> };
  /** The public base URL for a request: the canonical resource URL a token must be bound to derives from it. */
  baseUrl?: (headers: IncomingMessage['headers']) => string;
  /** The per-key budget REST and MCP share. */
  rateLimiter: { check(principal: Principal): Promise<RateLimitState> };
  /** Each user's gateway settings (read on a cache miss only). */
  settings: { get(userId: string): Promise<GatewaySettingsView> };
  /** Which teams each user is in (a bundle shared with a team is usable by its members). */
  memberships: TeamMemberships;
  /** The tool policy; absent: none. */
  policy?: ToolPolicy | undefined;
  /** Where settings and user changes are announced (this instance and the others). */
  bus: ChangeBus;
  search: GatewaySearcher;
  logger: Logger;
}

const GATEWAY_PATH = /^\/mcp\/gateway(\/sse|\/messages)?\/?$/;
/** One bundle through the gateway, for OAuth clients given one bundle (and API keys with the mcp scope). */
const BUNDLE_PATH = /^\/mcp\/gateway\/bundles\/([A-Za-z0-9_-]{1,64})\/?$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** How long cached settings are trusted without a change notification (a lost message costs at most this). */
const SETTINGS_TTL_MS = 60_000;
const SCOPE_PREFIX = 'gateway:';

interface CachedSettings {
  readonly settings: GatewaySettingsView;
  readonly loadedAt: number;
}

interface CachedView {
  readonly view: GatewayView;
  readonly settings: GatewaySettingsView;
  readonly role: string;
  readonly userId: string;
  readonly registryGeneration: number;
  readonly catalogVersion: number;
  /** The tool policy version the view was compiled with (0 without a policy). */
  readonly policyVersion: number;
  /** The bundles the view serves, to tell which changes concern it. */
  readonly bundleIds: ReadonlySet<string>;
}

/**
 * `/mcp/gateway`: the calling user's tools on the MCP transport. Every request is authenticated
 * by a user API key with the `mcp` scope (cookies are not accepted), charged to the key's
 * per-minute budget, and served from a view compiled from the user's gateway settings and the
 * bundles they may use (`mayUseBundle`: their own, shared with them or their teams, or all for admins); sessions are bound to the user's scope and the key (its
 * hash). A revoked key or a deactivated user fails the next request, and their open GET streams
 * are closed.
 * Settings, bundles and catalog changes send `notifications/tools/list_changed` to the open
 * sessions they concern.
 */
export class GatewayEndpoint {
  private readonly settingsCache = new Map<string, CachedSettings>();
  private readonly loading = new Map<string, Promise<GatewaySettingsView>>();
  private readonly viewCache = new Map<string, CachedView>();
  /** Bumped on every settings invalidation: a load that started before it must not fill the cache. */
  private settingsGeneration = 0;
  /** Bumped on every bundle change: cached views compiled before it are stale. */
  private registryGeneration = 0;

  constructor(private readonly deps: GatewayEndpointDeps) {
    const { core, registry, catalog, bus } = deps;
    const unsubscribe = [
      bus.subscribe((m) => {
        if (m.kind === 'gateway_settings' && typeof m.userId === 'string') {
          this.settingsGeneration += 1;
          this.settingsCache.delete(m.userId);
          // A load begun before the change must not answer a request made after it.
          this.loading.delete(m.userId);
          this.viewCache.delete(m.userId);
          core.announceListChanged(new Set([SCOPE_PREFIX + m.userId]));
        } else if (m.kind === 'user' && typeof m.userId === 'string') {
          // A role change may widen or narrow what the user reaches; a deactivation must stop the
          // user's open streams too: they are told, then closed, and a reconnect authenticates again.
          this.viewCache.delete(m.userId);
          const scope = SCOPE_PREFIX + m.userId;
          core.announceListChanged(new Set([scope]));
          this.closeStreams((session) => session.scope === scope || session.scope.startsWith(`${scope}/`));
        } else if (m.kind === 'oauth_token') {
          // An OAuth access token revoked: the streams it opened close; a reconnect authenticates again.
          const tokenHash = m.tokenHash;
          this.closeStreams((session) => session.scope.startsWith(SCOPE_PREFIX) && session.credential === tokenHash);
        } else if (m.kind === 'api_key' && typeof m.keyHash === 'string') {
          // A key revoked, rotated or changed: its open streams close; a reconnect authenticates again.
          const keyHash = m.keyHash;
          this.closeStreams((session) => session.scope.startsWith(SCOPE_PREFIX) && session.credential === keyHash);
        }
      }),
      registry.onChange((change) => {
        this.registryGeneration += 1;
        this.announce(new Set([change.bundleId]));
      }),
      catalog.onChange((serverIds) => {
        const affected = registry.bundlesOfServers(new Set(serverIds));
        if (affected.length) this.announce(new Set(affected.map((b) => b.id)));
      }),
      // A policy change may change any user's tools: every cached view is stale, every gateway session told.
      ...(deps.policy
        ? [
            deps.policy.onChange(() => {
              this.viewCache.clear();
              this.announceToAll();
            }),
          ]
        : []),
      // A user joined or left a team: the bundles shared with it join or leave their gateway.
      deps.memberships.onChange((userIds) => {
        for (const userId of userIds) this.viewCache.delete(userId);
        core.announceListChanged(new Set([...userIds].map((u) => SCOPE_PREFIX + u)));
      }),
    ];
    core.onClose(() => unsubscribe.forEach((u) => u()));
  }

  private readonly route: McpRoute = {
    endpoint: 'gateway',
    resolve: (req, access) => this.resolve(req, access, { kind: 'gateway' }),
    methodNotAllowed: (res, _requestId, allow = 'GET, POST, DELETE') =>
      sendRpcError(res, 405, RpcCode.InvalidRequest, 'Method not allowed on this path', { headers: { allow } }),
  };

  /** The route of one bundle through the gateway (`/mcp/gateway/bundles/{bundle_id}`). */
  private bundleRoute(bundleId: string): McpRoute {
    return { ...this.route, resolve: (req, access) => this.resolve(req, access, { kind: 'bundle', bundleId }) };
  }

  /**
   * The route a path is served by on the fast path ahead of Koa (`/mcp/gateway` itself), or
   * undefined (the HTTP+SSE transport's paths and everything else go through Koa).
   */
  fastRoute(path: string): McpRoute | undefined {
    const match = GATEWAY_PATH.exec(path);
    if (match) return match[1] ? undefined : this.route;
    const bundle = BUNDLE_PATH.exec(path);
    return bundle ? this.bundleRoute(bundle[1]!) : undefined;
  }

  /** The Koa middleware: serves `/mcp/gateway`, passes everything else on. */
  middleware(): Middleware {
    const route = this.route;
    return async (ctx, next) => {
      const bundle = BUNDLE_PATH.exec(ctx.path);
      if (bundle) return this.deps.core.serve(ctx, this.bundleRoute(bundle[1]!));
      const match = GATEWAY_PATH.exec(ctx.path);
      if (!match) return next();
      // The HTTP+SSE transport (2024-11-05) for clients that speak only it.
      if (match[1]) return this.deps.core.serveSse(ctx, route, match[1] === '/sse' ? 'sse' : 'messages', '/mcp/gateway/messages');
      return this.deps.core.serve(ctx, route);
    };
  }

  /** The view a user's request is served from (compiled on a miss), for tests and benchmarks. */
  viewFor(principal: Pick<Principal, 'userId' | 'role'>, settings: GatewaySettingsView): GatewayView {
    const cached = this.viewCache.get(principal.userId);
    if (
      cached &&
      cached.settings === settings &&
      cached.role === principal.role &&
      cached.registryGeneration === this.registryGeneration &&
      cached.catalogVersion === this.deps.catalog.version &&
      cached.policyVersion === (this.deps.policy?.version ?? 0)
    ) {
      return cached.view;
    }
    const registryGeneration = this.registryGeneration;
    const catalogVersion = this.deps.catalog.version;
    const policyVersion = this.deps.policy?.version ?? 0;
    const bundles = this.selectedBundles(principal, settings);
    // Without rules there is no gate and the view is compiled as if there were no policy at all.
    const gate = this.deps.policy?.gateFor({ userId: principal.userId, teamIds: this.deps.memberships.teamsOf(principal.userId) });
    const { core, catalog, views, search } = this.deps;
    const view = new GatewayView({
      mode: settings.mode,
      searchLimit: settings.search_result_limit,
      bundles: bundles.map((b) => views.of(b)),
      catalog,
      search,
      pageSize: core.toolsPageSize,
      serverInfo: core.serverInfo,
      gate,
    });
    this.viewCache.set(principal.userId, {
      view,
      settings,
      role: principal.role,
      userId: principal.userId,
      registryGeneration,
      catalogVersion,
      policyVersion,
      bundleIds: new Set(bundles.map((b) => b.id)),
    });
    return view;
  }

  /**
   * The bundles a user's gateway serves, in a stable order: the selection (in its order) among
   * the bundles the user may use, or, for an empty selection, every bundle they may use by name.
   * A selected bundle that is gone or no longer usable is left out, never replaced by "all".
   */
  private selectedBundles(user: Pick<Principal, 'userId' | 'role'>, settings: GatewaySettingsView): LiveBundle[] {
    const { registry } = this.deps;
    const who = { userId: user.userId, role: user.role, teamIds: this.deps.memberships.teamsOf(user.userId) };
    if (settings.bundle_ids.length === 0) {
      return [...registry.all()]
        .filter((b) => mayUseBundle(who, b))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    const out: LiveBundle[] = [];
    for (const id of settings.bundle_ids) {
      const b = registry.get(id);
      if (b && mayUseBundle(who, b)) out.push(b);
    }
    return out;
  }

  /**
   * Authenticates a request to `/mcp/gateway` (or one bundle through it): a user API key with the
   * `mcp` scope, or an OAuth access token of Toolgate's own authorization server bound to exactly
   * this resource (RFC 8707: a token for `/mcp/gateway` is refused on a bundle's path, and the
   * other way round). Without a valid credential: 401 with the RFC 9728 challenge pointing to the
   * resource's metadata; with too little scope: 403 `insufficient_scope`.
   */
  private async resolve(req: IncomingMessage, access: McpAccess, resource: OAuthResource): Promise<McpResolution> {
    // With several instances: what another one changed before this request (a new bundle, the
    // user's settings, a revoked key) applies here first, however late its notification.
    const behind = this.deps.bus.caughtUp();
    if (behind) await behind;
    const base = this.deps.baseUrl?.(req.headers);
    const challenge = (error?: string): Record<string, string> => ({ 'www-authenticate': bearerChallenge(base, resource, error) });
    const token = BEARER.exec(header(req, 'authorization') ?? '')?.[1];
    if (!token) {
      const cookie = /(?:^|;\s*)access_token=/.test(header(req, 'cookie') ?? '');
      const message = cookie
        ? 'Unauthorized: cookies are not accepted on /mcp/gateway; send a user API key or an OAuth access token as a Bearer token'
        : 'Unauthorized: send a user API key with the mcp scope, or an OAuth access token, as a Bearer token';
      return refuse(401, RpcCode.Forbidden, message, challenge());
    }
    let principal: Principal;
    let credential: string;
    if (this.deps.oauth && looksLikeAccessToken(token)) {
      let caller: OAuthCaller;
      try {
        caller = await this.deps.oauth.authenticate(token);
      } catch (err) {
        if (isConnectionError(err)) return unavailable();
        return refuse(401, RpcCode.Forbidden, 'Unauthorized: invalid, expired or revoked access token', challenge('invalid_token'));
      }
      if (!base || caller.resource !== resourceUrl(base, resource))
        return refuse(
          401,
          RpcCode.Forbidden,
          'Unauthorized: this access token was issued for another resource',
          challenge('invalid_token'),
        );
      if (!caller.scopes.includes(OAUTH_SCOPE))
        return refuse(
          403,
          RpcCode.Forbidden,
          `Forbidden: the access token lacks the ${OAUTH_SCOPE} scope`,
          challenge('insufficient_scope'),
        );
      principal = caller.principal;
      credential = hashSecret(token);
    } else {
      try {
        principal = await this.deps.auth.authenticate(token, req.socket.remoteAddress);
      } catch (err) {
        if (err instanceof UnauthorizedError)
          return refuse(401, RpcCode.Forbidden, 'Unauthorized: invalid, expired or revoked API key', challenge('invalid_token'));
        if (isConnectionError(err)) return unavailable();
        throw err;
      }
      if (principal.via !== 'api_key' || !principal.scopes.includes('mcp')) {
        return refuse(403, RpcCode.Forbidden, 'Forbidden: this API key lacks the mcp scope', challenge('insufficient_scope'));
      }
      // The key's hash, as key changes are announced: a session answers to the key that opened it.
      credential = hashKey(token);
    }
    access.user = principal.userId;
    let bundle: LiveBundle | undefined;
    if (resource.kind === 'bundle') {
      bundle = this.deps.registry.get(resource.bundleId);
      const who = { userId: principal.userId, role: principal.role, teamIds: this.deps.memberships.teamsOf(principal.userId) };
      if (!bundle || !mayUseBundle(who, bundle)) return refuse(404, RpcCode.InvalidRequest, 'No such bundle among yours');
      access.bundle = bundle.id;
    }
    let budget: RateLimitState;
    try {
      budget = await this.deps.rateLimiter.check(principal);
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      return refuse(429, RpcCode.RateLimited, 'Rate limit exceeded', {
        'retry-after': String(err.retryAfterSeconds),
        'ratelimit-limit': String(err.limit),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(err.retryAfterSeconds),
      });
    }
    const caller = {
      endpoint: 'gateway' as const,
      userId: principal.userId,
      apiKeyId: principal.apiKeyId,
      oauthClientId: principal.oauthClientId ?? null,
    };
    if (bundle) {
      const served = bundle;
      return {
        target: {
          scope: `${SCOPE_PREFIX}${principal.userId}/bundles/${served.id}`,
          credential,
          caller,
          view: () => this.deps.views.of(served),
          headers: rateLimitHeaders(budget),
        },
      };
    }
    let settings: GatewaySettingsView;
    try {
      settings = await this.settingsOf(principal.userId);
    } catch (err) {
      if (isConnectionError(err)) return unavailable();
      throw err;
    }
    const view = this.viewFor(principal, settings);
    return {
      target: {
        scope: SCOPE_PREFIX + principal.userId,
        credential,
        caller,
        view: () => view,
        headers: rateLimitHeaders(budget),
      },
    };
  }

  /**
   * A user's settings from memory. A miss loads them (the only database read on this path, once
   * per user); an entry past its TTL is still served while a reload runs in the background, so a
   * warm request never waits on the database, and an outage keeps the last known settings.
   */
  private async settingsOf(userId: string): Promise<GatewaySettingsView> {
    const hit = this.settingsCache.get(userId);
    if (hit) {
      if (Date.now() - hit.loadedAt >= SETTINGS_TTL_MS) {
        this.load(userId).catch((err: unknown) =>
          this.deps.logger.debug(
            { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
            'gateway settings reload failed',
          ),
        );
      }
      return hit.settings;
    }
    return this.load(userId);
  }

  /** Loads a user's settings into the cache (one load per user at a time). */
  private load(userId: string): Promise<GatewaySettingsView> {
    let pending = this.loading.get(userId);
    if (pending) return pending;
    const generation = this.settingsGeneration;
    pending = this.deps.settings
      .get(userId)
      .then((loaded) => {
        const hit = this.settingsCache.get(userId);
        // Unchanged settings keep their identity, so the compiled view survives a reload.
        const settings = hit && sameSettings(hit.settings, loaded) ? hit.settings : loaded;
        if (generation === this.settingsGeneration) this.settingsCache.set(userId, { settings, loadedAt: Date.now() });
        return settings;
      })
      .finally(() => {
        if (this.loading.get(userId) === pending) this.loading.delete(userId);
      });
    this.loading.set(userId, pending);
    return pending;
  }

  /** Ends the GET streams of the sessions `which` selects (the sessions live on). */
  private closeStreams(which: (session: Pick<Session, 'scope' | 'credential'>) => boolean): void {
    for (const session of [...this.deps.core.sessions.streams()]) if (which(session)) session.stream?.end();
    this.deps.core.listens.closeWhere((scope, credential) => which({ scope, credential }));
  }

  /** Sends list_changed to every open gateway stream. */
  private announceToAll(): void {
    const scopes = new Set<string>();
    for (const scope of [...[...this.deps.core.sessions.listeners()].map((s) => s.scope), ...this.deps.core.listens.scopes()])
      if (scope.startsWith(SCOPE_PREFIX)) scopes.add(scope);
    if (scopes.size) this.deps.core.announceListChanged(scopes);
  }

  /** Sends list_changed to the open gateway streams whose view a change of these bundles concerns. */
  private announce(bundleIds: ReadonlySet<string>): void {
    const scopes = new Set<string>();
    for (const scope of [...[...this.deps.core.sessions.listeners()].map((s) => s.scope), ...this.deps.core.listens.scopes()]) {
      if (!scope.startsWith(SCOPE_PREFIX) || scopes.has(scope)) continue;
      const userId = scope.slice(SCOPE_PREFIX.length);
      if (this.concerns(userId, bundleIds)) scopes.add(scope);
    }
    if (scopes.size) this.deps.core.announceListChanged(scopes);
  }

  /** Whether a change of these bundles may change what the user sees (true when unsure). */
  private concerns(userId: string, bundleIds: ReadonlySet<string>): boolean {
    const cached = this.viewCache.get(userId);
    if (!cached) return true;
    for (const id of bundleIds) {
      if (cached.bundleIds.has(id)) return true;
      // A bundle created (or made usable) joins an empty selection.
      if (cached.settings.bundle_ids.length === 0) {
        const bundle = this.deps.registry.get(id);
        const who = { userId, role: cached.role as Principal['role'], teamIds: this.deps.memberships.teamsOf(userId) };
        if (bundle && mayUseBundle(who, bundle)) return true;
      }
    }
    return false;
  }
}

/**
 * The `WWW-Authenticate` challenge of `/mcp/gateway` (RFC 6750, RFC 9728): where the resource's
 * metadata is, the scope to ask for, and the error when a token was sent.
 */
function bearerChallenge(base: string | undefined, resource: OAuthResource, error?: string): string {
  const parts = ['Bearer realm="toolgate"'];
  if (base) {
    const url = new URL(resourceUrl(base, resource));
    parts.push(`resource_metadata="${url.origin}/.well-known/oauth-protected-resource${url.pathname}"`);
  }
  parts.push(`scope="${OAUTH_SCOPE}"`);
  if (error) parts.push(`error="${error}"`);
  return parts.join(', ');
}

function refuse(status: number, code: number, message: string, headers?: Record<string, string>): McpResolution {
  return { refusal: { status, code, message, ...(headers ? { headers } : {}) } };
}

function unavailable(): McpResolution {
  return refuse(503, RpcCode.InternalError, 'Service unavailable: the database did not answer; try again shortly', { 'retry-after': '5' });
}

function sameSettings(a: GatewaySettingsView, b: GatewaySettingsView): boolean {
  return (
    a.mode === b.mode &&
    a.search_result_limit === b.search_result_limit &&
    a.updated_at === b.updated_at &&
    a.bundle_ids.length === b.bundle_ids.length &&
    a.bundle_ids.every((id, i) => id === b.bundle_ids[i])
  );
}
