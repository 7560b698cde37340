/**
 * Every change one instance announces to the others (src/redis/change-bus.ts), as one closed
 * union: a listener switches on `kind` and TypeScript knows the fields. A message from another
 * instance is checked by `parseChangeMessage` before any listener sees it, so a message of a kind
 * this version does not know (a newer instance during a rolling upgrade) is dropped, not guessed at.
 */
export type ChangeMessage =
  /** An API key was revoked, rotated or changed: drop its cached principal. */
  | { kind: 'api_key'; keyHash: string }
  /** A user was deactivated, deleted or changed role: drop their keys' and sessions' cached principals. */
  | { kind: 'user'; userId: string }
  /** A console session was signed out. */
  | { kind: 'session'; sessionId: string }
  /** The console sign-in settings changed. */
  | { kind: 'auth_settings' }
  /** The general settings changed: reload them. */
  | { kind: 'general_settings' }
  /** One user's `/mcp/gateway` settings changed. */
  | { kind: 'gateway_settings'; userId: string }
  /** The AI provider configurations changed: the tool search re-reads its embedder. */
  | { kind: 'ai_providers' }
  /** A bundle was written on instance `from`: the others re-read it. */
  | { kind: 'bundle'; bundleId: string; from: string }
  /** Teams or their memberships were written on instance `from`: the others re-read every membership. */
  | { kind: 'teams'; from: string }
  /** The tool policy rules were written on instance `from`: the others re-read them. */
  | { kind: 'tool_policy'; from: string }
  /** The guardrails (redaction settings, interceptors) were written on instance `from`: the others re-read them. */
  | { kind: 'guardrails'; from: string }
  /** A server was written on instance `from`: the others reconnect (or drop) it and re-read its catalog. */
  | { kind: 'server'; serverId: string; from: string }
  /** A shared stateful MCP session ended (DELETE, idle, key change): every instance forgets it. */
  | { kind: 'mcp_session_ended'; sessionId: string }
  /** An OAuth connection (grant) was revoked: every access token of it stops working. */
  | { kind: 'oauth_grant'; grantId: string }
  /** One OAuth access token was revoked (RFC 7009): drop it from the token cache. */
  | { kind: 'oauth_token'; tokenHash: string };

export type ChangeKind = ChangeMessage['kind'];

/** The string fields each kind carries: what `parseChangeMessage` requires. */
const FIELDS: { readonly [K in ChangeKind]: readonly Exclude<keyof Extract<ChangeMessage, { kind: K }>, 'kind'>[] } = {
  api_key: ['keyHash'],
  user: ['userId'],
  session: ['sessionId'],
  auth_settings: [],
  general_settings: [],
  gateway_settings: ['userId'],
  ai_providers: [],
  bundle: ['bundleId', 'from'],
  teams: ['from'],
  tool_policy: ['from'],
  guardrails: ['from'],
  server: ['serverId', 'from'],
  mcp_session_ended: ['sessionId'],
  oauth_grant: ['grantId'],
  oauth_token: ['tokenHash'],
};

/** Every kind of change message, in no particular order. */
export const CHANGE_KINDS = Object.keys(FIELDS) as ChangeKind[];

/** The message `value` is, when it is a well-formed change message of a known kind; otherwise undefined. */
export function parseChangeMessage(value: unknown): ChangeMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !Object.hasOwn(FIELDS, kind)) return undefined;
  const message: Record<string, string> = { kind };
  for (const field of FIELDS[kind as ChangeKind]) {
    const v = (value as Record<string, unknown>)[field];
    if (typeof v !== 'string') return undefined;
    message[field] = v;
  }
  return message as ChangeMessage;
}
