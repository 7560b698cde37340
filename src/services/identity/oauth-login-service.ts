import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { BadGatewayError, BadRequestError, ConflictError, ForbiddenError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { OutboundRefusedError, type OutboundPolicy } from '../../lib/outbound-policy.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Logger } from '../../logger.js';
import type { DbOAuthProviderRow } from '../../stores/oauth-providers-store.js';
import type { DbInvitationRow } from '../../stores/invitations-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { DbUserRow } from '../../stores/users-store.js';
import type { ActivityLog } from '../operations/activity-log.js';
import type { AuthSettingsService } from './auth-settings-service.js';
import type { InvitationsService } from './invitations-service.js';
import type { OAuthProvidersService } from './oauth-providers-service.js';
import type { Role } from '../../domain/principal.js';
import type { IssuedSession, SessionsService } from './sessions-service.js';

/** Name of the short-lived cookie that binds a callback to the browser that started the login. */
export const STATE_COOKIE = 'tg_oauth_state';
/** How long a started login may take. */
export const STATE_TTL_SECONDS = 600;
const DISCOVERY_TTL_MS = 10 * 60_000;

interface LoginState {
  st: string;
  cv: string;
  n: string | null;
  p: string;
  inv: string | null;
  r: string;
  exp: number;
}

/** What the provider told us about the person signing in. */
export interface ProviderIdentity {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  /** The groups the provider's group claim lists (`groups_claim`); null when it sent none. */
  groups: string[] | null;
}

interface Preset {
  authorization_url?: string;
  token_url?: string;
  userinfo_url?: string;
  discovery_url?: string;
  scopes: string[];
  oidc: boolean;
}

const PRESETS: Record<string, Preset> = {
  github: {
    authorization_url: 'https://github.com/login/oauth/authorize',
    token_url: 'https://github.com/login/oauth/access_token',
    userinfo_url: 'https://api.github.com/user',
    scopes: ['read:user', 'user:email'],
    oidc: false,
  },
  google: {
    discovery_url: 'https://accounts.google.com/.well-known/openid-configuration',
    scopes: ['openid', 'email', 'profile'],
    oidc: true,
  },
};

/** A group claim's value as a list of group names (a list of strings, or one string); null when absent or malformed. */
function groupsOf(value: unknown): string[] | null {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string').slice(0, 1000);
  return null;
}

function str(config: Record<string, unknown>, key: string): string | undefined {
  const v = config[key];
  return typeof v === 'string' && v ? v : undefined;
}

/**
 * Browser sign-in with OAuth 2.0 / OpenID Connect (openid-client): authorization code flow with
 * PKCE (S256), `state` and, for OpenID providers, `nonce` and ID token validation. The login state
 * travels in a sealed (AES-256-GCM), HttpOnly, 10-minute cookie. Provider endpoints — discovery
 * included — are fetched under the outbound-address policy.
 *
 * The callback signs in an existing active user (matched by provider subject, then by email), or
 * creates one when the email is invited (the invitation is accepted in the same transaction), in
 * an allowed domain, or an admin email (who becomes admin). Everyone else gets 403.
 */
export class OAuthLoginService {
  private readonly configs = new Map<string, { config: oidc.Configuration; at: number; stamp: string }>();

  constructor(
    private readonly deps: {
      tx: Transactor;
      invitations: InvitationsService;
      providers: OAuthProvidersService;
      authSettings: AuthSettingsService;
      sessions: SessionsService;
      secrets: SecretBox;
      policy: OutboundPolicy;
      clock: Clock;
      logger: Logger;
      /** Called when a user changes (cache invalidation). */
      onUserChange: (userId: string) => void;
      /** Applies the group claims of a sign-in to the user's team memberships (absent: groups are ignored). */
      applyGroups?: (userId: string, providerType: string, groups: readonly string[] | null) => Promise<void>;
      /** The activity log: users created at sign-in and invitations accepted. */
      activity: ActivityLog;
    },
  ) {}

  /** Starts a login: the provider's authorization URL and the sealed state cookie value. */
  async start(
    providerType: string,
    options: { baseUrl: string; invitation?: string | undefined; redirectTo?: string | undefined },
  ): Promise<{ location: string; stateCookie: string }> {
    const { row, clientSecret } = await this.deps.providers.withSecret(providerType);
    if (options.invitation) await this.deps.invitations.findUsable(options.invitation);
    const { config, preset } = await this.configFor(row, clientSecret);
    const state: LoginState = {
      st: oidc.randomState(),
      cv: oidc.randomPKCECodeVerifier(),
      n: preset.oidc ? oidc.randomNonce() : null,
      p: providerType,
      inv: options.invitation ?? null,
      r: options.redirectTo ?? '/',
      exp: Math.floor(this.deps.clock.now().getTime() / 1000) + STATE_TTL_SECONDS,
    };
    const scopes = Array.isArray(row.config.scopes) ? (row.config.scopes as string[]) : preset.scopes;
    const params: Record<string, string> = {
      redirect_uri: this.redirectUri(options.baseUrl, providerType),
      scope: scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(state.cv),
      code_challenge_method: 'S256',
      state: state.st,
    };
    if (state.n) params.nonce = state.n;
    const location = oidc.buildAuthorizationUrl(config, params).href;
    return { location, stateCookie: this.deps.secrets.seal(JSON.stringify(state)) };
  }

  /**
   * Completes a login: checks the state cookie, exchanges the code, reads the verified email,
   * finds or creates the user and opens a session.
   */
  async callback(
    providerType: string,
    input: {
      baseUrl: string;
      stateCookie: string | undefined;
      query: { code?: string; state?: string; error?: string; error_description?: string };
    },
  ): Promise<{ session: IssuedSession; redirectTo: string; user: DbUserRow }> {
    const { query } = input;
    if (query.error) throw new BadRequestError(`The provider reported an error: ${query.error.slice(0, 100)}`, 'oauth_provider_error');
    if (!query.code || !query.state) throw new BadRequestError('The callback lacks code or state', 'oauth_invalid_callback');
    const state = this.openState(input.stateCookie);
    if (state.p !== providerType || state.st !== query.state)
      throw new BadRequestError('The login state does not match', 'oauth_invalid_state');
    const { row, clientSecret } = await this.deps.providers.withSecret(providerType);
    const { config, preset } = await this.configFor(row, clientSecret);

    const currentUrl = new URL(this.redirectUri(input.baseUrl, providerType));
    for (const [k, v] of Object.entries(query)) if (typeof v === 'string') currentUrl.searchParams.set(k, v);
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: state.cv,
        expectedState: state.st,
        ...(state.n ? { expectedNonce: state.n } : {}),
        idTokenExpected: preset.oidc,
      });
    } catch (err) {
      throw this.providerError(err, 'token');
    }
    const identity = await this.identityOf(row, preset, config, tokens);
    if (!identity.emailVerified) throw new ForbiddenError('The provider has not verified this email address', 'email_not_verified');
    const user = await this.provision(providerType, identity, state.inv);
    // The group claims place the user in the teams they map to (before the session, so the first
    // request already sees them).
    await this.deps.applyGroups?.(user.id, providerType, identity.groups);
    const session = await this.deps.sessions.create(user.id, providerType);
    return { session, redirectTo: state.r, user };
  }

  /** The callback address registered at the provider. */
  redirectUri(baseUrl: string, providerType: string): string {
    return `${baseUrl}/api/v1/auth/callback/${encodeURIComponent(providerType)}`;
  }

  private openState(sealed: string | undefined): LoginState {
    if (!sealed) throw new BadRequestError('The login state cookie is missing; start the login again', 'oauth_invalid_state');
    let state: LoginState;
    try {
      state = JSON.parse(this.deps.secrets.open(sealed)) as LoginState;
    } catch {
      throw new BadRequestError('The login state cookie is invalid; start the login again', 'oauth_invalid_state');
    }
    if (state.exp * 1000 <= this.deps.clock.now().getTime()) {
      throw new BadRequestError('The login took too long; start it again', 'oauth_invalid_state');
    }
    return state;
  }

  private providerError(err: unknown, step: string): Error {
    if (err instanceof OutboundRefusedError) return new BadGatewayError(`The provider address is not allowed: ${err.message}`);
    if (err instanceof oidc.ResponseBodyError && (err.error === 'invalid_grant' || err.error === 'invalid_request')) {
      return new BadRequestError('The authorization code is invalid or expired', 'oauth_invalid_code');
    }
    if (err instanceof oidc.AuthorizationResponseError)
      return new BadRequestError('The provider rejected the login', 'oauth_provider_error');
    this.deps.logger.warn(
      { step, reason: err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : 'unknown' },
      'oauth provider failed',
    );
    return new BadGatewayError('The login provider failed; try again later');
  }

  private async configFor(row: DbOAuthProviderRow, clientSecret: string | null): Promise<{ config: oidc.Configuration; preset: Preset }> {
    const base: Preset = PRESETS[row.provider_type] ?? { scopes: ['openid', 'email', 'profile'], oidc: true };
    const cfg = row.config;
    const discovery =
      str(cfg, 'discovery_url') ??
      (str(cfg, 'issuer') ? `${str(cfg, 'issuer')!.replace(/\/$/, '')}/.well-known/openid-configuration` : undefined);
    const explicit = str(cfg, 'authorization_url') && str(cfg, 'token_url');
    const preset: Preset = {
      ...base,
      discovery_url: explicit ? undefined : (discovery ?? base.discovery_url),
      authorization_url: str(cfg, 'authorization_url') ?? base.authorization_url,
      token_url: str(cfg, 'token_url') ?? base.token_url,
      userinfo_url: str(cfg, 'userinfo_url') ?? base.userinfo_url,
      oidc: explicit || row.provider_type === 'github' ? false : base.oidc,
    };
    const stamp = `${row.updated_at.getTime()}`;
    const cached = this.configs.get(row.provider_type);
    if (cached && cached.stamp === stamp && Date.now() - cached.at < DISCOVERY_TTL_MS) return { config: cached.config, preset };

    const fetcher = this.deps.policy.fetch as unknown as oidc.CustomFetch;
    const insecure = [preset.discovery_url, preset.authorization_url, preset.token_url].some((u) => u?.startsWith('http:'));
    let config: oidc.Configuration;
    try {
      if (preset.discovery_url) {
        config = await oidc.discovery(new URL(preset.discovery_url), row.client_id, clientSecret ?? undefined, undefined, {
          [oidc.customFetch]: fetcher,
          ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
          timeout: 10,
        });
      } else {
        config = new oidc.Configuration(
          {
            issuer: new URL(preset.authorization_url!).origin,
            authorization_endpoint: preset.authorization_url!,
            token_endpoint: preset.token_url!,
            ...(preset.userinfo_url ? { userinfo_endpoint: preset.userinfo_url } : {}),
          },
          row.client_id,
          clientSecret ?? undefined,
        );
        if (insecure) oidc.allowInsecureRequests(config);
      }
    } catch (err) {
      throw this.providerError(err, 'discovery');
    }
    config[oidc.customFetch] = fetcher;
    this.configs.set(row.provider_type, { config, at: Date.now(), stamp });
    return { config, preset };
  }

  private async identityOf(
    row: DbOAuthProviderRow,
    preset: Preset,
    config: oidc.Configuration,
    tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>,
  ): Promise<ProviderIdentity> {
    const emailClaim = str(row.config, 'email_claim') ?? 'email';
    const nameClaim = str(row.config, 'name_claim') ?? 'name';
    try {
      if (row.provider_type === 'github') return await this.githubIdentity(config, tokens.access_token, preset);
      let claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
      if (typeof claims[emailClaim] !== 'string') {
        const info = preset.oidc
          ? await oidc.fetchUserInfo(config, tokens.access_token, typeof claims.sub === 'string' ? claims.sub : oidc.skipSubjectCheck)
          : await this.json(config, tokens.access_token, preset.userinfo_url!);
        claims = { ...claims, ...info };
      }
      const email = claims[emailClaim];
      const subject = claims.sub ?? claims.id;
      if (typeof email !== 'string' || !email.includes('@') || (typeof subject !== 'string' && typeof subject !== 'number')) {
        throw new ForbiddenError('The provider did not share an email address', 'email_missing');
      }
      return {
        subject: String(subject),
        email,
        emailVerified: claims.email_verified !== false && claims.email_verified !== 'false',
        name: typeof claims[nameClaim] === 'string' ? (claims[nameClaim] as string) : null,
        groups: groupsOf(claims[str(row.config, 'groups_claim') ?? 'groups']),
      };
    } catch (err) {
      if (err instanceof ForbiddenError) throw err;
      throw this.providerError(err, 'userinfo');
    }
  }

  private async json(config: oidc.Configuration, accessToken: string, url: string): Promise<Record<string, unknown>> {
    const res = await oidc.fetchProtectedResource(config, accessToken, new URL(url), 'GET');
    if (!res.ok) throw new Error(`userinfo answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  }

  private async githubIdentity(config: oidc.Configuration, accessToken: string, preset: Preset): Promise<ProviderIdentity> {
    const user = await this.json(config, accessToken, preset.userinfo_url!);
    const emailsUrl = new URL('/user/emails', preset.userinfo_url!).href;
    const res = await oidc.fetchProtectedResource(config, accessToken, new URL(emailsUrl), 'GET');
    const emails = res.ok ? ((await res.json()) as { email: string; primary: boolean; verified: boolean }[]) : [];
    const primary = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified);
    if (!primary) throw new ForbiddenError('GitHub did not share a verified email address', 'email_not_verified');
    return {
      subject: String(user.id),
      email: primary.email,
      emailVerified: true,
      name: typeof user.name === 'string' ? user.name : typeof user.login === 'string' ? user.login : null,
      groups: null,
    };
  }

  private async recordAccepted(stores: Stores, invitation: DbInvitationRow, user: DbUserRow): Promise<void> {
    await this.deps.activity.record(stores, {
      action: 'invitation.accept',
      target: { type: 'invitation', id: invitation.id, name: invitation.email },
      details: { role: invitation.role, user_id: user.id },
      actor: { userId: user.id, name: user.name || user.email },
    });
  }

  /** Finds, links or creates the user for a verified identity, accepting an invitation if one applies. */
  private async provision(providerType: string, identity: ProviderIdentity, invitationToken: string | null): Promise<DbUserRow> {
    const settings = await this.deps.authSettings.get();
    const now = this.deps.clock.now();
    const email = identity.email.toLowerCase();
    const domain = email.split('@')[1] ?? '';
    const isAdminEmail = settings.admin_emails.some((e) => e.toLowerCase() === email);
    // Two callbacks for the same new email can race: the loser's insert hits the unique email
    // index, and its second pass finds and links the winner's row instead of failing.
    const user = await this.provisionOnce(providerType, identity, invitationToken, { email, isAdminEmail, domain, settings, now }).catch(
      (err: unknown) => {
        if (err instanceof ConflictError && err.code === 'email_taken')
          return this.provisionOnce(providerType, identity, invitationToken, { email, isAdminEmail, domain, settings, now });
        throw err;
      },
    );
    this.deps.onUserChange(user.id);
    return user;
  }

  private provisionOnce(
    providerType: string,
    identity: ProviderIdentity,
    invitationToken: string | null,
    ctx: { email: string; isAdminEmail: boolean; domain: string; settings: { allowed_domains: readonly string[] }; now: Date },
  ): Promise<DbUserRow> {
    const { email, isAdminEmail, domain, settings, now } = ctx;
    return this.deps.tx.transaction(async (stores) => {
      const { users, invitations } = stores;
      let invitation = invitationToken ? await this.deps.invitations.findUsable(invitationToken, invitations, true) : undefined;
      if (invitation && invitation.email.toLowerCase() !== email) {
        throw new ForbiddenError(
          'This invitation is for another email address; sign in with the invited account',
          'invitation_email_mismatch',
        );
      }
      const existing = (await users.findByAuthSubject(providerType, identity.subject)) ?? (await users.findByEmail(email));
      if (existing) {
        if (!existing.is_active) throw new ForbiddenError('This user is deactivated', 'user_deactivated');
        const linked = await users.update(
          existing.id,
          {
            auth_provider: providerType,
            auth_subject: identity.subject,
            last_login_at: now,
          },
          now,
        );
        invitation ??= await invitations.findPendingByEmail(email, now);
        if (invitation) {
          await invitations.markAccepted(invitation.id, existing.id, now);
          await this.recordAccepted(stores, invitation, existing);
        }
        return linked!;
      }
      invitation ??= await invitations.findPendingByEmail(email, now);
      const allowed = invitation || isAdminEmail || settings.allowed_domains.includes(domain);
      if (!allowed)
        throw new ForbiddenError('This email address may not sign in here; ask an admin for an invitation', 'email_not_allowed');
      let role: Role = invitation?.role ?? 'member';
      if (isAdminEmail && role === 'member') role = 'admin';
      const created = await users.insert({
        id: randomUUID(),
        email: identity.email,
        name: identity.name ?? identity.email.split('@')[0] ?? identity.email,
        role,
        auth_provider: providerType,
        auth_subject: identity.subject,
        last_login_at: now,
      });
      // The new user acts: sign-in is no admin's doing.
      await this.deps.activity.record(stores, {
        action: 'user.create',
        target: { type: 'user', id: created.id, name: created.name || created.email },
        details: { role, auth_provider: providerType, invitation_id: invitation?.id ?? null },
        actor: { userId: created.id, name: created.name || created.email },
      });
      if (invitation) {
        await invitations.markAccepted(invitation.id, created.id, now);
        await this.recordAccepted(stores, invitation, created);
      }
      return created;
    });
  }
}
