import { ForbiddenError } from '../errors.js';
import type { ApiKeysService } from './api-keys-service.js';
import type { IssuedSession, SessionsService } from './sessions-service.js';
import type { UsersService, UserView } from './users-service.js';

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
    private readonly apiKeys: Pick<ApiKeysService, 'authenticate' | 'usableUntil'>,
    private readonly sessions: Pick<SessionsService, 'create'>,
    private readonly users: Pick<UsersService, 'me'>,
  ) {}

  /** Opens a session for the key's user; UnauthorizedError for any bad key, ForbiddenError for a narrow one. */
  async signIn(apiKey: string, ip: string): Promise<{ session: IssuedSession; user: UserView }> {
    const principal = await this.apiKeys.authenticate(apiKey, ip);
    const missing = SESSION_SCOPES.filter((s) => !principal.scopes.includes(s));
    if (missing.length) {
      throw new ForbiddenError(
        `This API key lacks the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''} a console session needs`,
        'insufficient_scope',
      );
    }
    const notAfter = await this.apiKeys.usableUntil(principal.userId, principal.apiKeyId!);
    const session = await this.sessions.create(principal.userId, API_KEY_SESSION_PROVIDER, { notAfter });
    return { session, user: await this.users.me(principal.userId) };
  }
}
