import { hkdfSync } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import { OutboundPolicy } from '../lib/outbound-policy.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Logger } from '../logger.js';
import type { ApiKeysStore } from '../stores/api-keys-store.js';
import { AuthSettingsStore } from '../stores/auth-settings-store.js';
import { GatewaySettingsStore } from '../stores/gateway-settings-store.js';
import { InvitationsStore } from '../stores/invitations-store.js';
import { OAuthProvidersStore } from '../stores/oauth-providers-store.js';
import { SessionsStore } from '../stores/sessions-store.js';
import type { UsersStore } from '../stores/users-store.js';
import { ApiKeysService } from './api-keys-service.js';
import { AuthSettingsService } from './auth-settings-service.js';
import { checkScope } from './authorization.js';
import { LocalChangeBus, RedisChangeBus, type ChangeBus } from './change-bus.js';
import { GatewaySettingsService } from './gateway-settings-service.js';
import { InvitationsService } from './invitations-service.js';
import { OAuthLoginService } from './oauth-login-service.js';
import { OAuthProvidersService } from './oauth-providers-service.js';
import type { Principal } from './principal.js';
import { RateLimiter, rateLimitHeaders } from './rate-limiter.js';
import { SessionsService } from './sessions-service.js';
import { UsersService } from './users-service.js';

/** Everything identity and access provides to the rest of the process. */
export interface IdentityServices {
  readonly bus: ChangeBus;
  readonly apiKeys: ApiKeysService;
  readonly users: UsersService;
  readonly authSettings: AuthSettingsService;
  readonly oauthProviders: OAuthProvidersService;
  readonly oauthLogin: OAuthLoginService;
  readonly sessions: SessionsService;
  readonly invitations: InvitationsService;
  readonly gatewaySettings: GatewaySettingsService;
  readonly rateLimiter: RateLimiter;
  readonly outboundPolicy: OutboundPolicy;
  /**
   * The credential check shared by REST and the MCP gateway endpoint: a Bearer API key (cached,
   * no database round trip when warm) or a session cookie.
   */
  authenticateBearer(token: string, ip: string): Promise<Principal>;
  authenticateCookie(token: string, ip: string): Promise<Principal>;
  /** Charges one request to the principal's budget; throws RateLimitedError (429) past it. */
  checkRateLimit(principal: Principal): Promise<Record<string, string>>;
  /** Throws ForbiddenError when an API key lacks the scope of the operation. */
  checkScope(principal: Principal, operation: { method: string; path: string }): void;
  start(): void;
  close(): Promise<void>;
}

/** Derives a purpose-bound key from the master key (HKDF-SHA256). */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `toolgate:${purpose}`, 32));
}

/** Builds the identity services on one database. */
export function createIdentity(deps: {
  config: Config;
  logger: Logger;
  clock: Clock;
  knex: Knex;
  users: UsersStore;
  apiKeysStore: ApiKeysStore;
  secrets: SecretBox;
  masterKey: Buffer;
  /** The change bus, when the caller built it (else one is built here). */
  bus?: ChangeBus;
  /** Run-time source of the default rate limit (general settings); else the configuration's. */
  live?: { readonly defaultRateLimitRpm: number };
}): IdentityServices {
  const { config, logger, clock, knex } = deps;
  const bus: ChangeBus = deps.bus ?? (config.redisUrl ? new RedisChangeBus(config.redisUrl, logger) : new LocalChangeBus());
  const live = deps.live ?? config;
  const authSettings = new AuthSettingsService(new AuthSettingsStore(knex), clock, bus);
  const keyConfig = {
    keyPrefix: config.keyPrefix,
    get defaultRateLimitRpm() {
      return live.defaultRateLimitRpm;
    },
  };
  const apiKeys = new ApiKeysService(deps.apiKeysStore, keyConfig, clock, { knex, bus, authSettings, logger });
  const sessions = new SessionsService(
    new SessionsStore(knex),
    deriveKey(deps.masterKey, 'session-token-v1'),
    clock,
    authSettings,
    bus,
    () => live.defaultRateLimitRpm,
  );
  const onUserChange = (userId: string): void => apiKeys.invalidateUser(userId);
  const users = new UsersService(knex, deps.users, clock, onUserChange);
  const outboundPolicy = new OutboundPolicy(config.outboundAllowlist);
  const oauthProviders = new OAuthProvidersService(new OAuthProvidersStore(knex), deps.secrets, clock, outboundPolicy);
  const invitationsStore = new InvitationsStore(knex);
  const invitations = new InvitationsService(invitationsStore, deps.users, oauthProviders, clock);
  const oauthLogin = new OAuthLoginService({
    knex,
    users: deps.users,
    invitationsStore,
    invitations,
    providers: oauthProviders,
    authSettings,
    sessions,
    secrets: deps.secrets,
    policy: outboundPolicy,
    clock,
    logger,
    onUserChange,
  });
  const rateLimiter = new RateLimiter({ redisUrl: config.redisUrl, logger });
  const gatewaySettings = new GatewaySettingsService(new GatewaySettingsStore(knex), clock, bus);
  let purgeTimer: NodeJS.Timeout | undefined;
  return {
    bus,
    apiKeys,
    users,
    authSettings,
    oauthProviders,
    oauthLogin,
    sessions,
    invitations,
    gatewaySettings,
    rateLimiter,
    outboundPolicy,
    authenticateBearer: (token, ip) => apiKeys.authenticate(token, ip),
    authenticateCookie: (token) => sessions.authenticate(token),
    checkRateLimit: async (principal) => rateLimitHeaders(await rateLimiter.check(principal)),
    checkScope,
    start() {
      apiKeys.start();
      // Hourly, and harmless when several instances do it at once.
      purgeTimer ??= setInterval(() => void sessions.purgeExpired().catch(() => undefined), 3_600_000);
      purgeTimer.unref();
    },
    async close() {
      if (purgeTimer) clearInterval(purgeTimer);
      await apiKeys.stop();
      await rateLimiter.close();
      await bus.close();
    },
  };
}
