/**
 * Persistence of Toolgate's own OAuth authorization server: clients, authorization requests,
 * grants (connected apps) and token hashes. Tokens and codes are stored as SHA-256 hashes only.
 */
import type { Knex } from 'knex';
import type { Role } from '../domain/principal.js';

export interface DbOAuthClientRow {
  id: string;
  client_id: string;
  source: 'dynamic' | 'admin';
  name: string;
  redirect_uris: string[];
  application_type: string;
  client_uri: string | null;
  status: 'active' | 'pending';
  created_by: string | null;
  created_at: Date;
}

export interface DbOAuthAuthorizationRow {
  id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  scope: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  created_at: Date;
  expires_at: Date;
  user_id: string | null;
  decision: 'approved' | 'denied' | null;
  code_hash: string | null;
  code_expires_at: Date | null;
  code_used_at: Date | null;
  grant_id: string | null;
}

export interface DbOAuthGrantRow {
  id: string;
  client_id: string;
  client_name: string;
  user_id: string;
  resource: string;
  scope: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export interface DbOAuthTokenRow {
  token_hash: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** A grant with its owner, as the token check and the lists read it. */
export interface OAuthGrantWithUser {
  grant: DbOAuthGrantRow;
  user: { id: string; email: string; name: string; role: Role; is_active: boolean };
}

const CLIENT_COLUMNS = [
  'id',
  'client_id',
  'source',
  'name',
  'redirect_uris',
  'application_type',
  'client_uri',
  'status',
  'created_by',
  'created_at',
] as const;
const AUTH_COLUMNS = [
  'id',
  'client_id',
  'client_name',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'resource',
  'created_at',
  'expires_at',
  'user_id',
  'decision',
  'code_hash',
  'code_expires_at',
  'code_used_at',
  'grant_id',
] as const;
const GRANT_COLUMNS = [
  'id',
  'client_id',
  'client_name',
  'user_id',
  'resource',
  'scope',
  'created_at',
  'last_used_at',
  'revoked_at',
  'revoked_reason',
] as const;
const TOKEN_COLUMNS = ['token_hash', 'grant_id', 'kind', 'created_at', 'expires_at', 'used_at'] as const;

/** jsonb comes back parsed from pg, and as text from some drivers. */
function clientRow(row: DbOAuthClientRow): DbOAuthClientRow {
  const uris = row.redirect_uris as unknown;
  return { ...row, redirect_uris: typeof uris === 'string' ? (JSON.parse(uris) as string[]) : (uris as string[]) };
}

export class OAuthStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  // Clients

  async insertClient(row: DbOAuthClientRow): Promise<DbOAuthClientRow> {
    const [created] = await this.db('oauth_clients')
      .insert({ ...row, redirect_uris: JSON.stringify(row.redirect_uris) })
      .returning(CLIENT_COLUMNS);
    return clientRow(created as DbOAuthClientRow);
  }

  async findClient(clientId: string): Promise<DbOAuthClientRow | undefined> {
    const row = (await this.db('oauth_clients').select(CLIENT_COLUMNS).where({ client_id: clientId }).first()) as
      DbOAuthClientRow | undefined;
    return row && clientRow(row);
  }

  async listClients(): Promise<DbOAuthClientRow[]> {
    const rows = (await this.db('oauth_clients').select(CLIENT_COLUMNS).orderBy('created_at', 'desc').limit(1000)) as DbOAuthClientRow[];
    return rows.map(clientRow);
  }

  async setClientStatus(clientId: string, status: DbOAuthClientRow['status']): Promise<boolean> {
    return (await this.db('oauth_clients').where({ client_id: clientId }).update({ status })) > 0;
  }

  async deleteClient(clientId: string): Promise<boolean> {
    return (await this.db('oauth_clients').where({ client_id: clientId }).delete()) > 0;
  }

  // Authorization requests

  async insertAuthorization(row: DbOAuthAuthorizationRow): Promise<void> {
    await this.db('oauth_authorizations').insert(row);
  }

  async findAuthorization(id: string): Promise<DbOAuthAuthorizationRow | undefined> {
    return (await this.db('oauth_authorizations').select(AUTH_COLUMNS).where({ id }).first()) as DbOAuthAuthorizationRow | undefined;
  }

  /** The authorization holding this code hash, locked for the redemption's transaction. */
  async findByCodeForUpdate(codeHash: string): Promise<DbOAuthAuthorizationRow | undefined> {
    return (await this.db('oauth_authorizations').select(AUTH_COLUMNS).where({ code_hash: codeHash }).forUpdate().first()) as
      DbOAuthAuthorizationRow | undefined;
  }

  /** Records a decision once: false when the request was already decided. */
  async decide(
    id: string,
    change: Pick<DbOAuthAuthorizationRow, 'user_id' | 'decision' | 'code_hash' | 'code_expires_at' | 'grant_id'>,
  ): Promise<boolean> {
    return (await this.db('oauth_authorizations').where({ id }).whereNull('decision').update(change)) > 0;
  }

  /** Marks a code used once: false when it was used already. */
  async useCode(id: string, at: Date): Promise<boolean> {
    return (await this.db('oauth_authorizations').where({ id }).whereNull('code_used_at').update({ code_used_at: at })) > 0;
  }

  /** Deletes authorization requests past their lifetime (housekeeping). */
  async deleteExpiredAuthorizations(before: Date): Promise<number> {
    return this.db('oauth_authorizations').where('expires_at', '<', before).delete();
  }

  // Grants

  async insertGrant(row: DbOAuthGrantRow): Promise<void> {
    await this.db('oauth_grants').insert(row);
  }

  async findGrant(id: string): Promise<DbOAuthGrantRow | undefined> {
    return (await this.db('oauth_grants').select(GRANT_COLUMNS).where({ id }).first()) as DbOAuthGrantRow | undefined;
  }

  /** Revokes a grant once: false when it was revoked already (or is unknown). */
  async revokeGrant(id: string, at: Date, reason: string): Promise<boolean> {
    return (await this.db('oauth_grants').where({ id }).whereNull('revoked_at').update({ revoked_at: at, revoked_reason: reason })) > 0;
  }

  /** Revokes every live grant of a client; returns the grants revoked. */
  async revokeGrantsOfClient(clientId: string, at: Date, reason: string): Promise<DbOAuthGrantRow[]> {
    return (await this.db('oauth_grants')
      .where({ client_id: clientId })
      .whereNull('revoked_at')
      .update({ revoked_at: at, revoked_reason: reason })
      .returning(GRANT_COLUMNS)) as DbOAuthGrantRow[];
  }

  /** Live grants (not revoked), newest first; of one user when `userId` is given. */
  async listGrants(userId?: string): Promise<(DbOAuthGrantRow & { user_email: string; user_name: string })[]> {
    const q = this.db('oauth_grants as g')
      .join('users as u', 'u.id', 'g.user_id')
      .select([...GRANT_COLUMNS.map((c) => `g.${c}`), 'u.email as user_email', 'u.name as user_name'])
      .whereNull('g.revoked_at')
      .orderBy('g.created_at', 'desc')
      .limit(1000);
    if (userId) void q.where('g.user_id', userId);
    return (await q) as (DbOAuthGrantRow & { user_email: string; user_name: string })[];
  }

  async touchGrants(batch: readonly { id: string; at: Date }[]): Promise<void> {
    for (const { id, at } of batch) await this.db('oauth_grants').where({ id }).update({ last_used_at: at });
  }

  // Tokens

  async insertTokens(rows: readonly DbOAuthTokenRow[]): Promise<void> {
    await this.db('oauth_tokens').insert(rows);
  }

  /** A token by hash with its grant and the grant's owner. */
  async findToken(tokenHash: string): Promise<(OAuthGrantWithUser & { token: DbOAuthTokenRow }) | undefined> {
    const row = (await this.db('oauth_tokens as t')
      .join('oauth_grants as g', 'g.id', 't.grant_id')
      .join('users as u', 'u.id', 'g.user_id')
      .select([
        ...TOKEN_COLUMNS.map((c) => `t.${c} as t_${c}`),
        ...GRANT_COLUMNS.map((c) => `g.${c} as g_${c}`),
        'u.email as u_email',
        'u.name as u_name',
        'u.role as u_role',
        'u.is_active as u_is_active',
      ])
      .where('t.token_hash', tokenHash)
      .first()) as Record<string, unknown> | undefined;
    if (!row) return undefined;
    const pick = (prefix: string, cols: readonly string[]) => Object.fromEntries(cols.map((c) => [c, row[prefix + c]]));
    const grant = pick('g_', GRANT_COLUMNS) as unknown as DbOAuthGrantRow;
    return {
      token: pick('t_', TOKEN_COLUMNS) as unknown as DbOAuthTokenRow,
      grant,
      user: {
        id: grant.user_id,
        email: row.u_email as string,
        name: row.u_name as string,
        role: row.u_role as Role,
        is_active: row.u_is_active as boolean,
      },
    };
  }

  /** Marks a refresh token used once: false when it was used already (a replay). */
  async useToken(tokenHash: string, at: Date): Promise<boolean> {
    return (await this.db('oauth_tokens').where({ token_hash: tokenHash }).whereNull('used_at').update({ used_at: at })) > 0;
  }

  async deleteToken(tokenHash: string): Promise<void> {
    await this.db('oauth_tokens').where({ token_hash: tokenHash }).delete();
  }

  /** Deletes tokens that expired before `before` (housekeeping). */
  async deleteExpiredTokens(before: Date): Promise<number> {
    return this.db('oauth_tokens').where('expires_at', '<', before).delete();
  }
}
