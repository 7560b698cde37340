/**
 * Dynamic client registration (RFC 7591) at Toolgate's own authorization server: an MCP client
 * registers itself at `POST /oauth/register` as a public client, under the registration policy
 * of the general settings (open, held for an administrator's approval, or off). The metadata
 * rules here (redirect URIs, grant and response types, names) are also the ones an admin's
 * pre-registration of a client keeps (connected-apps.ts). Registering issues a client id and
 * nothing else: the authorization and token protocol is oauth-server-service.ts's.
 */
import { randomUUID } from 'node:crypto';
import {
  OAuthProtocolError,
  redirectHost,
  redirectUriProblem,
  type ClientRegistrationPolicy,
  type OAuthRegistrationApi,
} from '../../domain/oauth.js';
import type { Clock } from '../../lib/clock.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';

const MAX_PARAM = 2048;
const MAX_REDIRECT_URIS = 20;

/** The client metadata Toolgate keeps of a registration. */
export interface ClientMetadata {
  name: string;
  redirectUris: string[];
  applicationType: 'native' | 'web';
  clientUri: string | null;
}

/** See the file comment. */
export class OAuthClientRegistration implements OAuthRegistrationApi {
  constructor(
    private readonly deps: {
      tx: Transactor;
      clock: Clock;
      activity: ActivityLog;
      /** The dynamic registration policy in force (general settings), read on every registration. */
      registrationPolicy: () => ClientRegistrationPolicy;
    },
  ) {}

  registrationPolicy(): ClientRegistrationPolicy {
    return this.deps.registrationPolicy();
  }

  async register(body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const policy = this.deps.registrationPolicy();
    if (policy === 'off') throw new OAuthProtocolError('access_denied', 'dynamic client registration is turned off on this server', 403);
    const meta = parseClientMetadata(body);
    const clientId = `tgc_${randomUUID()}`;
    const now = this.deps.clock.now();
    const status = policy === 'admin_approval' ? 'pending' : 'active';
    await this.deps.tx.transaction(async (stores) => {
      await stores.oauth.insertClient({
        id: randomUUID(),
        client_id: clientId,
        source: 'dynamic',
        name: meta.name,
        redirect_uris: meta.redirectUris,
        application_type: meta.applicationType,
        client_uri: meta.clientUri,
        status,
        created_by: null,
        created_at: now,
      });
      await this.deps.activity.record(stores, {
        action: 'oauth_client.register',
        target: { type: 'oauth_client', id: clientId, name: meta.name },
        details: { status, redirect_hosts: meta.redirectUris.map(redirectHost) },
        actor: { userId: null, name: null },
      });
    });
    return {
      status: 201,
      body: {
        client_id: clientId,
        client_id_issued_at: Math.floor(now.getTime() / 1000),
        client_name: meta.name,
        redirect_uris: meta.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: meta.applicationType,
        ...(meta.clientUri ? { client_uri: meta.clientUri } : {}),
      },
    };
  }
}

/**
 * Validates RFC 7591 client metadata (public clients only); throws OAuthProtocolError. With
 * `admin` (an admin's pre-registration) the name is required instead of defaulted.
 */
export function parseClientMetadata(body: unknown, admin = false): ClientMetadata {
  const bad = (error: string, description: string): never => {
    throw new OAuthProtocolError(error, description);
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return bad('invalid_client_metadata', 'the body must be a JSON object');
  const m = body as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every((u) => typeof u === 'string'))
    return bad('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`);
  for (const u of uris as string[]) {
    const problem = u.length > MAX_PARAM ? 'is too long' : redirectUriProblem(u);
    if (problem) bad('invalid_redirect_uri', `redirect URI ${JSON.stringify(u.slice(0, 100))} ${problem}`);
  }
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== 'none')
    bad('invalid_client_metadata', 'only public clients are supported: token_endpoint_auth_method must be "none"');
  const grants = m.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grants) || !grants.every((g) => g === 'authorization_code' || g === 'refresh_token'))
    bad('invalid_client_metadata', 'grant_types may hold only authorization_code and refresh_token');
  const responses = m.response_types ?? ['code'];
  if (!Array.isArray(responses) || !responses.every((r) => r === 'code'))
    bad('invalid_client_metadata', 'response_types may hold only code');
  if (m.client_name !== undefined && (typeof m.client_name !== 'string' || m.client_name.length > 200))
    bad('invalid_client_metadata', 'client_name must be a string of at most 200 characters');
  if (
    m.client_uri !== undefined &&
    (typeof m.client_uri !== 'string' || !m.client_uri.startsWith('https://') || m.client_uri.length > MAX_PARAM)
  )
    bad('invalid_client_metadata', 'client_uri must be an https URL');
  const allNative = (uris as string[]).every((u) => !u.startsWith('https://'));
  const type = m.application_type ?? (allNative ? 'native' : 'web');
  if (type !== 'native' && type !== 'web') bad('invalid_client_metadata', 'application_type must be native or web');
  const name = typeof m.client_name === 'string' && m.client_name.trim() ? m.client_name.trim() : admin ? '' : 'Unnamed client';
  if (!name) bad('invalid_client_metadata', 'name is required');
  return {
    name,
    redirectUris: uris as string[],
    applicationType: type as 'native' | 'web',
    clientUri: (m.client_uri as string | undefined) ?? null,
  };
}
