import { ForbiddenError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { ApiKeyAuthenticator } from './api-key-authenticator.js';
import type { ApiKeysService } from './api-keys-service.js';
import type { IssuedSession, SessionsService } from './sessions-service.js';
import type { UsersService } from './users-service.js';

/** Scopes a key needs before it may open a full browser session (which is not narrowed by scopes). */
const SESSION_SCOPES = ['api:read', 'api:write'] as const;

/** `auth_provider` recorded on sessions opened with an API key. */
export const API_KEY_SESSION_PROVIDER = 'api_key';

/**
 * Sign-in with an API key (the web console on an installation without OAuth providers): the key
 * is checked exactly like a Bearer key, and a session is opened for its user. Sessions are not
 * narrowed by scopes, so only a key that may already read and write everything can open one; the
 * session never outlives the key (its `expires_at`, or the end of a rotation grace period). The key is not stored with the session.
 */
export class KeySessionService {
  constructor(
    private readonly authenticator: Pick<ApiKeyAuthenticator, 'authenticate'>,
    private readonly apiKeys: Pick<ApiKeysService, 'usableUntil'>,
    private readonly sessions: Pick<SessionsService, 'create'>,
    private readonly users: Pick<UsersService, 'me'>,
  ) {}

  /**
   * Opens a session for the key's user: the contract body and the session whose token goes in the
   * cookie. UnauthorizedError for any bad key, ForbiddenError for a narrow one.
   */
  async signIn(apiKey: string, ip: string): Promise<{ session: IssuedSession; body: components['schemas']['SessionResponse'] }> {
    const principal = await this.authenticator.authenticate(apiKey, ip);
    const missing = SESSION_SCOPES.filter((s) => !principal.scopes.includes(s));
    if (missing.length) {
      throw new ForbiddenError(
        `This API key lacks the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''} a console session needs`,
        'insufficient_scope',
      );
    }
    const notAfter = await this.apiKeys.usableUntil(principal.userId, principal.apiKeyId!);
    const session = await this.sessions.create(principal.userId, API_KEY_SESSION_PROVIDER, { notAfter });
    const user = await this.users.me(principal.userId);
    return { session, body: { user, expires_at: session.expiresAt.toISOString() } };
  }
}
