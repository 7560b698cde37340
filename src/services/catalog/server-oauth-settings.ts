/**
 * The upstream OAuth client settings of a registered server: how the API's `auth_mode` and
 * `oauth` block (and a configuration document's) become the server row's OAuth columns, with the
 * rules the schema cannot state (a client secret needs its client id, `private_key_jwt` needs a
 * private key that parses, token exchange needs a client, OAuth is for HTTP servers only), the
 * client secret sealed on the way in; and the way back out: the settings as the API shows them
 * (never the secret), the secret opened for the configuration import. The server registry and the
 * configuration import both write these columns, so the rules live here once.
 */
import { RequestValidationError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { DbServerRow } from '../../stores/servers-store.js';
import { privateKeyAlg } from '../../upstream/upstream-oauth.js';

type Schemas = components['schemas'];
type SettingsInput = Schemas['ServerOAuthSettingsInput'];

/** The columns of a server row that hold its upstream OAuth client settings. */
export type ServerOAuthColumns = Pick<
  DbServerRow,
  'auth_mode' | 'oauth_client_id' | 'oauth_client_secret_sealed' | 'oauth_token_endpoint_auth_method' | 'oauth_scopes'
>;

/** A 422 on one field of the request body (the configuration import re-places it inside its document). */
const invalid = (field: string, msg: string, type: string, input: unknown): RequestValidationError =>
  new RequestValidationError([{ loc: ['body', field], msg, type, input, ctx: {} }]);

/** The OAuth columns of a server without OAuth (`auth_mode` none): every setting cleared. */
export function noOAuthColumns(): ServerOAuthColumns {
  return {
    auth_mode: 'none',
    oauth_client_id: null,
    oauth_client_secret_sealed: null,
    oauth_token_endpoint_auth_method: null,
    oauth_scopes: [],
  };
}

/**
 * The OAuth columns of a server for `mode` and the settings `input` (a patch of `before`'s when
 * updating: absent leaves alone, null clears). The client secret is sealed; with `none` they are cleared.
 */
export function oauthColumns(
  secrets: Pick<SecretBox, 'seal'>,
  mode: DbServerRow['auth_mode'],
  input: SettingsInput | undefined,
  before: DbServerRow | undefined,
): ServerOAuthColumns {
  if (mode === 'none') return noOAuthColumns();
  const pick = <K extends keyof SettingsInput, T>(key: K, old: T, map: (v: NonNullable<SettingsInput[K]>) => T): T => {
    const v = input?.[key];
    if (v === undefined) return old;
    return v === null ? (null as T) : map(v as NonNullable<SettingsInput[K]>);
  };
  const clientId = pick('client_id', before?.oauth_client_id ?? null, (v) => v);
  const method = pick('token_endpoint_auth_method', before?.oauth_token_endpoint_auth_method ?? null, (v) => v);
  const given = input?.client_secret;
  // A private key is checked before it is sealed: a bad one is the admin's mistake (422), not a failed call later.
  if (method === 'private_key_jwt' && typeof given === 'string' && privateKeyAlg(given) === undefined)
    throw invalid('oauth.client_secret', 'Not a PEM (PKCS#8) EC, RSA or Ed25519 private key', 'invalid_private_key', '[redacted]');
  const secret = pick('client_secret', before?.oauth_client_secret_sealed ?? null, (v) => secrets.seal(v));
  if (secret !== null && clientId === null) throw invalid('oauth', 'A client secret needs its client_id', 'missing', '[redacted]');
  if (method === 'private_key_jwt' && secret === null)
    throw invalid('oauth.client_secret', 'private_key_jwt needs the private key (client_secret)', 'missing', null);
  if (mode === 'oauth_token_exchange' && clientId === null)
    throw invalid('oauth.client_id', 'Token exchange needs the client Toolgate is at the upstream authorization server', 'missing', null);
  return {
    auth_mode: mode,
    oauth_client_id: clientId,
    oauth_client_secret_sealed: clientId === null ? null : secret,
    oauth_token_endpoint_auth_method: method,
    oauth_scopes: pick('scopes', before?.oauth_scopes ?? [], (v) => [...v]) ?? [],
  };
}

/** Refuses OAuth settings in an update that leaves (or makes) the server a stdio one. */
export function refuseStdioOAuth(patch: Pick<Schemas['MCPServerUpdate'], 'auth_mode' | 'oauth'>): void {
  if ((patch.auth_mode !== undefined && patch.auth_mode !== 'none') || patch.oauth)
    throw invalid('auth_mode', 'OAuth is for HTTP servers only', 'extra_forbidden', patch.auth_mode ?? null);
}

/** A server's OAuth client settings as the API shows them: whether there is a secret, never its value. */
export function oauthSettingsView(row: DbServerRow): Schemas['ServerOAuthSettings'] | null {
  if (row.auth_mode === 'none') return null;
  return {
    client_id: row.oauth_client_id,
    has_client_secret: row.oauth_client_secret_sealed !== null,
    token_endpoint_auth_method: row.oauth_token_endpoint_auth_method,
    scopes: row.oauth_scopes,
  };
}

/** Opens a server row's OAuth client secret (for the configuration import only; never returned). */
export function openOAuthSecret(secrets: Pick<SecretBox, 'open'>, row: Pick<DbServerRow, 'oauth_client_secret_sealed'>): string | null {
  return row.oauth_client_secret_sealed ? secrets.open(row.oauth_client_secret_sealed) : null;
}
