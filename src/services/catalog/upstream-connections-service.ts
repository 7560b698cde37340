/**
 * Connections to upstream servers behind OAuth: starting a user's "Connect" (discovery,
 * registration, the authorization URL), the callback that redeems the code into the vault, each
 * user's list and revocation, the admins' per-user view, and the token a call (or the catalog
 * sync) uses, refreshed before it expires — once across all instances, under a row lock of the
 * vault row. Tokens live sealed in the vault and leave it only as the Authorization header of an
 * upstream request: never in a response, a log line, an error or the activity log.
 */
import { createHash, randomUUID } from 'node:crypto';
import { BadGatewayError, BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Logger } from '../../logger.js';
import { roleAtLeast, type Principal } from '../../domain/principal.js';
import type { UpstreamCredential, UpstreamCredentials } from '../../domain/upstream-call.js';
import type { DbServerRow, ServersStore } from '../../stores/servers-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { DbUpstreamTokenRow, UpstreamOAuthStore } from '../../stores/upstream-oauth-store.js';
import type { ToolgateIssuerKeys } from './toolgate-issuer-keys.js';
import {
  newFlowSecrets,
  UpstreamOAuthError,
  type UpstreamAuthInfo,
  type UpstreamClient,
  type UpstreamOAuthClient,
  type UpstreamTokens,
} from '../../upstream/upstream-oauth.js';

type Schemas = components['schemas'];

/** Path of the callback route and of the client metadata document, under the public base URL. */
export const UPSTREAM_CALLBACK_PATH = '/api/v1/upstream-oauth/callback';
export const CLIENT_METADATA_PATH = '/api/v1/upstream-oauth/client-metadata.json';
/** How long a started Connect may take. */
const FLOW_TTL_MS = 10 * 60_000;
/** A token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 60_000;
/** How long discovery results are reused before the upstream is asked again. */
const DISCOVERY_TTL_MS = 10 * 60_000;

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * The vault and the Connect flow. `publicBase` is the base URL links and the redirect URI are built
 * from (the configured public URL, else the address served).
 */
export class UpstreamConnectionsService implements UpstreamCredentials {
  private readonly discovered = new Map<string, { info: UpstreamAuthInfo; at: number }>();
  /** Token exchanges in flight, by server and user: concurrent first calls of one user share one. */
  private readonly exchanging = new Map<string, Promise<DbUpstreamTokenRow | undefined>>();

  private baseUrl: () => string;

  constructor(
    private readonly deps: {
      tx: Transactor;
      store: UpstreamOAuthStore;
      /** Signs the subject tokens of token exchange (absent: the mode is unavailable). */
      issuerKeys?: ToolgateIssuerKeys;
      servers: ServersStore;
      client: UpstreamOAuthClient;
      secrets: SecretBox;
      clock: Clock;
      logger: Logger;
      publicBase: () => string;
      /** Where Toolgate's client metadata document is published, when not under the public base URL. */
      clientMetadataUrl?: string | undefined;
    },
  ) {
    this.baseUrl = deps.publicBase;
  }

  private authorizedListeners: ((serverId: string, revoked: boolean) => Promise<void>)[] = [];

  /**
   * Calls `listener` after a connection was stored (the catalog sync connects a server that waited
   * for one) or revoked (`revoked`: the sync stops using its token).
   */
  onAuthorized(listener: (serverId: string, revoked: boolean) => Promise<void>): void {
    this.authorizedListeners.push(listener);
  }

  /** Names the public base URL once the server knows it (links, the redirect URI, the CIMD URL). */
  useBaseUrl(base: () => string): void {
    this.baseUrl = base;
  }

  // ------------------------------------------------------------------ Connect

  /** The console page where a user connects a server (the link a call without a token carries). */
  connectPage(serverId: string): string {
    return `${this.baseUrl()}/connections?server=${encodeURIComponent(serverId)}`;
  }

  /** Toolgate's client ID metadata document (CIMD). */
  clientMetadata(base = this.baseUrl()): Schemas['UpstreamClientMetadata'] {
    return {
      client_id: this.deps.clientMetadataUrl ?? `${base}${CLIENT_METADATA_PATH}`,
      client_name: 'Toolgate',
      client_uri: base,
      redirect_uris: [`${base}${UPSTREAM_CALLBACK_PATH}`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'web',
    };
  }

  /**
   * Starts a Connect of `caller` to the OAuth server `serverId`: discovery, a client registration
   * (pre-registered, else CIMD, else DCR; kept per issuer), a pending flow (state hashed, verifier
   * sealed, the expected issuer recorded) and the authorization URL.
   */
  async start(caller: Principal, serverId: string, base = this.baseUrl()): Promise<Schemas['UpstreamConnectStart']> {
    const row = await this.oauthServer(serverId);
    if (!row.enabled) throw new ConflictError('The server is disabled; enable it first', 'server_disabled');
    if (row.auth_mode === 'oauth_token_exchange')
      throw new ConflictError('This server needs no Connect: Toolgate exchanges each caller identity for a token', 'server_token_exchange');
    const shared = row.auth_mode === 'oauth_shared';
    if (shared && !roleAtLeast(caller.role, 'admin'))
      throw new ForbiddenError('Only admins connect the shared credential of this server', 'forbidden');
    const info = await this.info(row, true);
    const client = await this.clientFor(row, info, base);
    const { codeVerifier, state } = newFlowSecrets();
    const configured = row.oauth_scopes.length ? row.oauth_scopes : [...info.scopes];
    // A step-up: the scopes the upstream asked for beyond the earlier grant, all in one consent.
    const earlier = await this.deps.store.token({ serverId: row.id, userId: shared ? null : caller.userId });
    const scopes = earlier?.status === 'needs_consent' ? [...new Set([...configured, ...earlier.scopes])] : configured;
    const expiresAt = new Date(this.deps.clock.now().getTime() + FLOW_TTL_MS);
    await this.deps.store.purgeFlows(this.deps.clock.now());
    await this.deps.store.insertFlow({
      state_hash: hash(state),
      server_id: row.id,
      user_id: caller.userId,
      shared,
      issuer: info.as.issuer,
      code_verifier_sealed: this.deps.secrets.seal(codeVerifier),
      scopes,
      expires_at: expiresAt,
    });
    const url = await this.deps.client.authorizationUrl(info, client, {
      redirectUri: `${base}${UPSTREAM_CALLBACK_PATH}`,
      state,
      codeVerifier,
      scopes,
    });
    return { authorization_url: url, expires_at: expiresAt.toISOString() };
  }

  /**
   * The authorization server's redirect back: takes the flow by `state` (once), validates the
   * response (`iss` against the recorded issuer before anything else), redeems the code and seals
   * the tokens into the vault. Answers where to send the browser.
   */
  async callback(query: Record<string, unknown>, base = this.baseUrl()): Promise<string> {
    const state = typeof query.state === 'string' ? query.state : undefined;
    if (!state) throw new BadRequestError('The callback carries no state', 'invalid_state');
    const flow = await this.deps.store.takeFlow(hash(state));
    if (!flow || flow.expires_at.getTime() < this.deps.clock.now().getTime())
      throw new BadRequestError('Unknown or expired state; start Connect again', 'invalid_state');
    const row = await this.oauthServer(flow.server_id);
    const info = await this.info(row, false);
    if (info.as.issuer !== flow.issuer)
      throw new BadRequestError('The authorization server changed; start Connect again', 'issuer_changed');
    const client = await this.clientFor(row, info, base);
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (typeof v === 'string' && k !== 'provider_params') params.set(k, v);
    const extra = query.provider_params;
    if (extra && typeof extra === 'object') for (const [k, v] of Object.entries(extra)) if (typeof v === 'string') params.set(k, v);
    let tokens: UpstreamTokens;
    try {
      tokens = await this.deps.client.redeem(info, client, {
        callback: params,
        state,
        redirectUri: `${base}${UPSTREAM_CALLBACK_PATH}`,
        codeVerifier: this.deps.secrets.open(flow.code_verifier_sealed),
        scopes: flow.scopes,
        now: this.deps.clock.now(),
      });
    } catch (err) {
      if (err instanceof UpstreamOAuthError && err.kind === 'authorization')
        throw new BadRequestError(err.message, 'invalid_authorization_response');
      throw this.gatewayError(err);
    }
    await this.save({ serverId: row.id, userId: flow.shared ? null : flow.user_id }, info.as.issuer, tokens);
    this.deps.logger.info({ serverId: row.id, shared: flow.shared }, 'upstream OAuth connection stored');
    for (const listener of this.authorizedListeners)
      await listener(row.id, false).catch((err: unknown) =>
        this.deps.logger.warn({ serverId: row.id, err: String(err) }, 'could not connect the server'),
      );
    return `${base}/connections?connected=${encodeURIComponent(row.id)}`;
  }

  // ------------------------------------------------------------------ lists

  /** The caller's connection state for every enabled per-user OAuth server. */
  async listMine(caller: Principal): Promise<Schemas['UpstreamConnectionList']> {
    const servers = (await this.deps.servers.all()).filter((s) => s.enabled && s.auth_mode === 'oauth_per_user');
    const tokens = await this.deps.store.tokensOfUser(caller.userId);
    return {
      items: servers.map((s) => {
        const t = tokens.find((x) => x.server_id === s.id);
        return {
          server_id: s.id,
          server_name: s.name,
          status: !t ? 'not_connected' : t.status === 'active' ? 'connected' : 'needs_consent',
          issuer: t?.issuer ?? null,
          scopes: t?.scopes ?? [],
          expires_at: t?.expires_at?.toISOString() ?? null,
          refreshed_at: t?.refreshed_at.toISOString() ?? null,
        };
      }),
    };
  }

  async revokeMine(caller: Principal, serverId: string): Promise<void> {
    if (!(await this.deps.store.deleteToken({ serverId, userId: caller.userId })))
      throw new NotFoundError('You have no connection to this server', 'connection_not_found');
    // The server's sync and health may have used this connection: they take another, or wait for one.
    for (const listener of this.authorizedListeners) await listener(serverId, true).catch(() => undefined);
  }

  /** Admins: who has a connection to the server (and the shared credential), never the token. */
  async listOfServer(serverId: string): Promise<Schemas['ServerConnectionList']> {
    if (!(await this.deps.servers.findById(serverId))) throw new NotFoundError('No such server', 'server_not_found');
    const rows = await this.deps.store.tokensOfServer(serverId);
    return {
      items: rows.map((t) => ({
        user_id: t.user_id,
        user_email: t.email,
        issuer: t.issuer,
        scopes: t.scopes,
        status: t.status === 'active' ? 'connected' : 'needs_consent',
        expires_at: t.expires_at?.toISOString() ?? null,
        refreshed_at: t.refreshed_at.toISOString(),
      })),
    };
  }

  // ------------------------------------------------------------------ tokens for calls

  /**
   * The credential a call of `userId` (null: the shared credential) to `serverId` carries: the
   * owner's access token, refreshed first when it expires within a minute. Without one, or when the
   * refresh is refused (`invalid_grant`), where the user connects. A shared server with a
   * confidential pre-registered client gets a client-credentials token when it has none.
   */
  async credential(serverId: string, userId: string | null): Promise<UpstreamCredential> {
    const needs = (reason: 'not_connected' | 'needs_consent'): UpstreamCredential => ({
      kind: 'needs_authorization',
      connectUrl: this.connectPage(serverId),
      reason,
    });
    let row = await this.deps.store.token({ serverId, userId });
    if (userId !== null && (!row || row.status !== 'active' || !this.fresh(row))) {
      // Token exchange: a missing, refused or expiring token is exchanged anew (no refresh token, no consent).
      const exchanged = await this.exchangedToken(serverId, userId);
      if (exchanged) return this.asCredential(exchanged);
    }
    if (!row && userId === null) row = await this.clientCredentialsToken(serverId);
    if (!row) return needs('not_connected');
    if (row.status !== 'active') return needs('needs_consent');
    if (this.fresh(row)) return this.asCredential(row);
    const refreshed = await this.refresh(row);
    return refreshed ? this.asCredential(refreshed) : needs('needs_consent');
  }

  /**
   * The credential catalog sync and health checks use: the shared one when there is one, else the
   * most recently refreshed user connection; undefined when there is none (`needs_authorization`).
   */
  async discoveryCredential(serverId: string): Promise<string | undefined> {
    const shared = await this.credential(serverId, null);
    if (shared.kind === 'token') return shared.accessToken;
    const row = await this.deps.store.discoveryToken(serverId);
    // Token exchange with nobody's token yet: one exchanged for Toolgate's first owner.
    const userId = row?.user_id ?? (await this.tokenExchangeOwner(serverId));
    if (!userId) return undefined;
    const c = await this.credential(serverId, userId);
    return c.kind === 'token' ? c.accessToken : undefined;
  }

  /**
   * The upstream refused the token of the server's shared connection (401): the vault row that
   * holds it (the shared credential, or the user connection catalog sync was using) is marked
   * `needs_consent`, so the sync takes another connection or shows `needs_authorization`. A row
   * whose token changed since (refreshed meanwhile) is left alone.
   */
  async discoveryRefused(serverId: string, accessToken: string): Promise<void> {
    const row = await this.deps.store.discoveryToken(serverId);
    if (!row || this.deps.secrets.open(row.access_token_sealed) !== accessToken) return;
    await this.deps.store.updateToken(row.id, { status: 'needs_consent' });
    this.deps.logger.info({ serverId }, 'upstream refused the OAuth token of its shared connection');
  }

  private async tokenExchangeOwner(serverId: string): Promise<string | undefined> {
    const server = await this.deps.servers.findById(serverId);
    if (server?.auth_mode !== 'oauth_token_exchange') return undefined;
    return (await this.deps.store.firstOwner())?.id;
  }

  /**
   * Token exchange (RFC 8693) for `userId` on a server in that mode: a subject token signed by
   * Toolgate (`sub` = the user, `aud` = the upstream's authorization server) for an access token of
   * the upstream, stored in the vault until it expires. Undefined for servers in another mode; a
   * failed exchange is logged (never with a token) and gives undefined too.
   */
  private exchangedToken(serverId: string, userId: string): Promise<DbUpstreamTokenRow | undefined> {
    const key = `${serverId} ${userId}`;
    let pending = this.exchanging.get(key);
    if (!pending) {
      pending = this.exchange(serverId, userId).finally(() => this.exchanging.delete(key));
      this.exchanging.set(key, pending);
    }
    return pending;
  }

  private async exchange(serverId: string, userId: string): Promise<DbUpstreamTokenRow | undefined> {
    const server = await this.deps.servers.findById(serverId);
    if (server?.auth_mode !== 'oauth_token_exchange' || !this.deps.issuerKeys) return undefined;
    const client = this.preRegistered(server);
    const user = await this.deps.store.activeUser(userId);
    if (!client || !user) return undefined;
    try {
      const info = await this.info(server, false);
      const now = this.deps.clock.now();
      const subjectToken = await this.deps.issuerKeys.subjectToken({ issuer: this.baseUrl(), audience: info.as.issuer, user, now });
      const scopes = server.oauth_scopes.length ? server.oauth_scopes : info.scopes;
      const tokens = await this.deps.client.tokenExchange(info, client, subjectToken, scopes, now);
      const saved = await this.save({ serverId, userId }, info.as.issuer, tokens);
      this.deps.logger.debug({ serverId }, 'upstream token exchanged for a user');
      return saved;
    } catch (err) {
      // Another instance sharing the database may have stored this user's token meanwhile (its
      // insert won and ours failed): that token serves as well as ours would have.
      const stored = await this.deps.store.token({ serverId, userId }).catch(() => undefined);
      if (stored && stored.status === 'active' && this.fresh(stored)) return stored;
      this.deps.logger.warn({ serverId, reason: err instanceof Error ? err.message : String(err) }, 'upstream token exchange failed');
      return undefined;
    }
  }

  /**
   * The upstream refused the owner's token: 401 (revoked or expired early) or 403
   * `insufficient_scope` with the scopes it wants. The row is marked `needs_consent` and, for a
   * step-up, widened to the union of the scopes it had and those asked for, so the next Connect
   * asks for all of them at once. Bounded: a 403 asking for nothing new (those scopes were already
   * granted, or already asked for) gives undefined, and the refusal reaches the caller as it is.
   */
  async refused(
    serverId: string,
    userId: string | null,
    status: number,
    scopes: readonly string[],
  ): Promise<Extract<UpstreamCredential, { kind: 'needs_authorization' }> | undefined> {
    const row = await this.deps.store.token({ serverId, userId });
    if (!row) return undefined;
    const union = [...new Set([...row.scopes, ...scopes])];
    if (status === 403 && union.length === row.scopes.length) return undefined;
    await this.deps.store.updateToken(row.id, { status: 'needs_consent', scopes: union });
    this.deps.logger.info({ serverId, status }, 'upstream refused the OAuth token: the user must connect again');
    return { kind: 'needs_authorization', connectUrl: this.connectPage(serverId), reason: 'needs_consent' };
  }

  private fresh(row: DbUpstreamTokenRow): boolean {
    return row.expires_at === null || row.expires_at.getTime() - REFRESH_MARGIN_MS > this.deps.clock.now().getTime();
  }

  private asCredential(row: DbUpstreamTokenRow): UpstreamCredential {
    const accessToken = this.deps.secrets.open(row.access_token_sealed);
    return { kind: 'token', accessToken, fingerprint: hash(accessToken).slice(0, 16) };
  }

  /**
   * Refreshes one vault row under its row lock: an instance that finds it already refreshed by
   * another (fresh once it holds the lock) uses that token, so one refresh happens across all
   * instances. `invalid_grant` marks the row `needs_consent`; other failures leave it as it was.
   */
  private async refresh(stale: DbUpstreamTokenRow): Promise<DbUpstreamTokenRow | undefined> {
    const server = await this.deps.servers.findById(stale.server_id);
    if (!server || server.auth_mode === 'none') return undefined;
    const info = await this.info(server, false).catch(() => undefined);
    if (!info) return undefined;
    // Read before the lock: on the embedded database a transaction holds its only connection.
    const client =
      stale.refresh_token_sealed === null ? undefined : await this.clientFor(server, info, this.baseUrl()).catch(() => undefined);
    return this.deps.tx.transaction(async (stores) => {
      const row = await stores.upstreamOAuth.tokenForUpdate(stale.id);
      if (!row || row.status !== 'active') return undefined;
      if (this.fresh(row)) return row;
      if (info.as.issuer !== row.issuer) {
        // The server moved to another authorization server: its tokens are of no use there.
        await stores.upstreamOAuth.updateToken(row.id, { status: 'needs_consent' });
        return undefined;
      }
      if (row.refresh_token_sealed === null) {
        if (row.user_id === null && server.oauth_client_secret_sealed) {
          const t = await this.clientCredentialsTokens(server, info).catch(() => undefined);
          if (!t) return undefined;
          await stores.upstreamOAuth.updateToken(row.id, this.sealed(t));
          return stores.upstreamOAuth.tokenForUpdate(row.id);
        }
        await stores.upstreamOAuth.updateToken(row.id, { status: 'needs_consent' });
        return undefined;
      }
      if (!client) return undefined;
      try {
        const t = await this.deps.client.refresh(
          info,
          client,
          this.deps.secrets.open(row.refresh_token_sealed),
          row.scopes,
          this.deps.clock.now(),
        );
        await stores.upstreamOAuth.updateToken(row.id, this.sealed(t));
        this.deps.logger.debug({ serverId: row.server_id }, 'upstream OAuth token refreshed');
        return stores.upstreamOAuth.tokenForUpdate(row.id);
      } catch (err) {
        if (err instanceof UpstreamOAuthError && err.kind === 'invalid_grant') {
          await stores.upstreamOAuth.updateToken(row.id, { status: 'needs_consent' });
          this.deps.logger.info({ serverId: row.server_id }, 'upstream OAuth refresh refused (invalid_grant): the user must connect again');
          return undefined;
        }
        this.deps.logger.warn(
          { serverId: row.server_id, reason: err instanceof Error ? err.message : String(err) },
          'upstream OAuth refresh failed',
        );
        return undefined;
      }
    });
  }

  private sealed(t: UpstreamTokens): Partial<DbUpstreamTokenRow> {
    return {
      access_token_sealed: this.deps.secrets.seal(t.accessToken),
      refresh_token_sealed: t.refreshToken === null ? null : this.deps.secrets.seal(t.refreshToken),
      expires_at: t.expiresAt,
      scopes: [...t.scopes],
      status: 'active',
      refreshed_at: this.deps.clock.now(),
    };
  }

  private async save(owner: { serverId: string; userId: string | null }, issuer: string, t: UpstreamTokens): Promise<DbUpstreamTokenRow> {
    await this.deps.tx.transaction(async (stores) => {
      await stores.upstreamOAuth.putToken({
        id: randomUUID(),
        server_id: owner.serverId,
        user_id: owner.userId,
        issuer,
        access_token_sealed: this.deps.secrets.seal(t.accessToken),
        refresh_token_sealed: t.refreshToken === null ? null : this.deps.secrets.seal(t.refreshToken),
        expires_at: t.expiresAt,
        scopes: [...t.scopes],
        status: 'active',
        refreshed_at: this.deps.clock.now(),
      });
    });
    return (await this.deps.store.token(owner))!;
  }

  /** A shared server with a confidential pre-registered client: a client-credentials token, stored as the shared credential. */
  private async clientCredentialsToken(serverId: string): Promise<DbUpstreamTokenRow | undefined> {
    const server = await this.deps.servers.findById(serverId);
    if (!server || server.auth_mode !== 'oauth_shared' || !server.oauth_client_id || !server.oauth_client_secret_sealed) return undefined;
    try {
      const info = await this.info(server, false);
      return await this.save({ serverId, userId: null }, info.as.issuer, await this.clientCredentialsTokens(server, info));
    } catch (err) {
      this.deps.logger.warn(
        { serverId, reason: err instanceof Error ? err.message : String(err) },
        'upstream client credentials grant failed',
      );
      return undefined;
    }
  }

  private clientCredentialsTokens(server: DbServerRow, info: UpstreamAuthInfo): Promise<UpstreamTokens> {
    const client = this.preRegistered(server)!;
    return this.deps.client.clientCredentials(
      info,
      client,
      server.oauth_scopes.length ? server.oauth_scopes : info.scopes,
      this.deps.clock.now(),
    );
  }

  // ------------------------------------------------------------------ discovery and registration

  /** Forgets what was discovered about a server and its registrations (its URL or OAuth settings changed). */
  async forget(serverId: string): Promise<void> {
    this.discovered.delete(serverId);
    await this.deps.store.deleteClients(serverId);
  }

  private async oauthServer(serverId: string): Promise<DbServerRow> {
    const row = await this.deps.servers.findById(serverId);
    if (!row) throw new NotFoundError('No such server', 'server_not_found');
    if (row.auth_mode === 'none' || !row.url) throw new ConflictError('The server does not use OAuth', 'server_not_oauth');
    return row;
  }

  private async info(row: DbServerRow, again: boolean): Promise<UpstreamAuthInfo> {
    const cached = this.discovered.get(row.id);
    if (!again && cached && this.deps.clock.now().getTime() - cached.at < DISCOVERY_TTL_MS) return cached.info;
    try {
      const info = await this.deps.client.discover(row.url!);
      this.discovered.set(row.id, { info, at: this.deps.clock.now().getTime() });
      return info;
    } catch (err) {
      throw this.gatewayError(err);
    }
  }

  private preRegistered(row: DbServerRow): UpstreamClient | undefined {
    if (!row.oauth_client_id) return undefined;
    const secret = row.oauth_client_secret_sealed ? this.deps.secrets.open(row.oauth_client_secret_sealed) : null;
    return {
      clientId: row.oauth_client_id,
      clientSecret: secret,
      tokenEndpointAuthMethod: row.oauth_token_endpoint_auth_method ?? (secret === null ? 'none' : 'client_secret_basic'),
    };
  }

  /**
   * Toolgate's client at this server's authorization server, in the MCP order: the admin's
   * pre-registered client; else Toolgate's client metadata document URL when the authorization
   * server supports CIMD; else a registration made once by DCR and kept per issuer.
   */
  private async clientFor(row: DbServerRow, info: UpstreamAuthInfo, base: string): Promise<UpstreamClient> {
    const pre = this.preRegistered(row);
    if (pre) return pre;
    if ((info.as as { client_id_metadata_document_supported?: boolean }).client_id_metadata_document_supported === true)
      return {
        clientId: this.deps.clientMetadataUrl ?? `${base}${CLIENT_METADATA_PATH}`,
        clientSecret: null,
        tokenEndpointAuthMethod: 'none',
      };
    const kept = await this.deps.store.client(row.id, info.as.issuer);
    if (kept)
      return {
        clientId: kept.client_id,
        clientSecret: kept.client_secret_sealed ? this.deps.secrets.open(kept.client_secret_sealed) : null,
        tokenEndpointAuthMethod: kept.token_endpoint_auth_method,
      };
    let registered: UpstreamClient;
    try {
      registered = await this.deps.client.register(info.as, `${base}${UPSTREAM_CALLBACK_PATH}`, 'Toolgate');
    } catch (err) {
      throw this.gatewayError(err);
    }
    await this.deps.store.putClient({
      id: randomUUID(),
      server_id: row.id,
      issuer: info.as.issuer,
      kind: 'dcr',
      client_id: registered.clientId,
      client_secret_sealed: registered.clientSecret === null ? null : this.deps.secrets.seal(registered.clientSecret),
      token_endpoint_auth_method: registered.tokenEndpointAuthMethod,
    });
    return registered;
  }

  private gatewayError(err: unknown): Error {
    if (err instanceof UpstreamOAuthError) return new BadGatewayError(err.message, `upstream_oauth_${err.kind}`);
    return err instanceof Error ? err : new Error(String(err));
  }
}
