/** Roles, strongest first: owner > admin > member. */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1 };

/** The authenticated caller of a request. Built fresh from the credential on every request. */
export interface Principal {
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  /** Which credential authenticated this request (`oauth`: an access token of Toolgate's own authorization server, MCP only). */
  readonly via: 'api_key' | 'cookie' | 'oauth';
  /** The API key used, when `via` is `api_key`. */
  readonly apiKeyId: string | null;
  /** The browser session used, when `via` is `cookie`; `oauth:<grant id>` when `via` is `oauth` (the rate-limit subject). */
  readonly sessionId?: string | null;
  /** The OAuth client the access token was issued to, when `via` is `oauth` (the audit trail names it). */
  readonly oauthClientId?: string | null;
  readonly scopes: readonly string[];
  /** Requests per minute this credential may make. */
  readonly rateLimitRpm: number;
}

/** True when `role` is at least `required` in the owner > admin > member order. */
export function roleAtLeast(role: Role, required: Role): boolean {
  return RANK[role] >= RANK[required];
}
