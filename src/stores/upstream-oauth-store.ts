import type { Knex } from 'knex';

/**
 * Toolgate as an OAuth client of upstream servers' authorization servers: its client
 * registrations (per server and issuer), pending authorization-code flows, and the token vault.
 * Every secret arrives here sealed and leaves sealed.
 */

export type DbUpstreamClientKind = 'pre_registered' | 'cimd' | 'dcr';
export type DbTokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

export interface DbUpstreamClientRow {
  id: string;
  server_id: string;
  issuer: string;
  kind: DbUpstreamClientKind;
  client_id: string;
  client_secret_sealed: string | null;
  token_endpoint_auth_method: DbTokenEndpointAuthMethod;
  created_at: Date;
}

export interface DbUpstreamFlowRow {
  state_hash: string;
  server_id: string;
  user_id: string;
  shared: boolean;
  issuer: string;
  code_verifier_sealed: string;
  scopes: string[];
  expires_at: Date;
}

export interface DbUpstreamTokenRow {
  id: string;
  server_id: string;
  /** null: the server's shared credential. */
  user_id: string | null;
  issuer: string;
  access_token_sealed: string;
  refresh_token_sealed: string | null;
  expires_at: Date | null;
  scopes: string[];
  status: 'active' | 'needs_consent';
  refreshed_at: Date;
  created_at: Date;
}

const CLIENT_COLUMNS = [
  'id',
  'server_id',
  'issuer',
  'kind',
  'client_id',
  'client_secret_sealed',
  'token_endpoint_auth_method',
  'created_at',
] as const;
const FLOW_COLUMNS = ['state_hash', 'server_id', 'user_id', 'shared', 'issuer', 'code_verifier_sealed', 'scopes', 'expires_at'] as const;
const TOKEN_COLUMNS = [
  'id',
  'server_id',
  'user_id',
  'issuer',
  'access_token_sealed',
  'refresh_token_sealed',
  'expires_at',
  'scopes',
  'status',
  'refreshed_at',
  'created_at',
] as const;

/** Which vault row: a user's, or (user null) the server's shared one. */
export interface TokenOwner {
  serverId: string;
  userId: string | null;
}

export class UpstreamOAuthStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  // ------------------------------------------------------------ client registrations

  async client(serverId: string, issuer: string): Promise<DbUpstreamClientRow | undefined> {
    return this.db('upstream_oauth_clients').select(CLIENT_COLUMNS).where({ server_id: serverId, issuer }).first();
  }

  /** Saves a registration; a concurrent one for the same server and issuer wins (the first is kept). */
  async putClient(row: Omit<DbUpstreamClientRow, 'created_at'>): Promise<DbUpstreamClientRow> {
    await this.db('upstream_oauth_clients').insert(row).onConflict(['server_id', 'issuer']).ignore();
    return (await this.client(row.server_id, row.issuer))!;
  }

  /** Forgets every registration of a server (its pre-registered client changed). */
  async deleteClients(serverId: string): Promise<void> {
    await this.db('upstream_oauth_clients').where({ server_id: serverId }).delete();
  }

  // ------------------------------------------------------------ pending flows

  async insertFlow(row: DbUpstreamFlowRow): Promise<void> {
    await this.db('upstream_oauth_flows').insert({ ...row, scopes: JSON.stringify(row.scopes) });
  }

  /** Takes (reads and deletes) a pending flow, so a state is redeemed at most once. */
  async takeFlow(stateHash: string): Promise<DbUpstreamFlowRow | undefined> {
    const [row] = await this.db('upstream_oauth_flows').where({ state_hash: stateHash }).delete().returning(FLOW_COLUMNS);
    return row as DbUpstreamFlowRow | undefined;
  }

  async purgeFlows(now: Date): Promise<void> {
    await this.db('upstream_oauth_flows').where('expires_at', '<', now).delete();
  }

  // ------------------------------------------------------------ the vault

  private owner(q: Knex.QueryBuilder, owner: TokenOwner): Knex.QueryBuilder {
    q.where({ server_id: owner.serverId });
    return owner.userId === null ? q.whereNull('user_id') : q.where({ user_id: owner.userId });
  }

  /** The owner's newest token row of the server (any issuer). */
  async token(owner: TokenOwner): Promise<DbUpstreamTokenRow | undefined> {
    return this.owner(this.db('upstream_oauth_tokens').select(TOKEN_COLUMNS), owner).orderBy('refreshed_at', 'desc').first();
  }

  /** The row locked until the transaction ends (one refresh across instances). */
  async tokenForUpdate(id: string): Promise<DbUpstreamTokenRow | undefined> {
    return this.db('upstream_oauth_tokens').select(TOKEN_COLUMNS).where({ id }).forUpdate().first();
  }

  /** Stores a fresh grant, replacing the owner's earlier ones of this server (any issuer). */
  async putToken(row: Omit<DbUpstreamTokenRow, 'created_at'>): Promise<void> {
    await this.owner(this.db('upstream_oauth_tokens'), { serverId: row.server_id, userId: row.user_id }).delete();
    await this.db('upstream_oauth_tokens').insert({ ...row, scopes: JSON.stringify(row.scopes) });
  }

  async updateToken(
    id: string,
    patch: Partial<
      Pick<DbUpstreamTokenRow, 'access_token_sealed' | 'refresh_token_sealed' | 'expires_at' | 'scopes' | 'status' | 'refreshed_at'>
    >,
  ): Promise<void> {
    const out: Record<string, unknown> = { ...patch };
    if (patch.scopes) out.scopes = JSON.stringify(patch.scopes);
    await this.db('upstream_oauth_tokens').where({ id }).update(out);
  }

  async deleteToken(owner: TokenOwner): Promise<boolean> {
    const gone = await this.owner(this.db('upstream_oauth_tokens'), owner).delete().returning('id');
    return gone.length > 0;
  }

  /** Every token of a user (deactivation). */
  async deleteTokensOfUser(userId: string): Promise<number> {
    return (await this.db('upstream_oauth_tokens').where({ user_id: userId }).delete().returning('id')).length;
  }

  /** A user's token rows (no secrets read), newest first. */
  async tokensOfUser(userId: string): Promise<Omit<DbUpstreamTokenRow, 'access_token_sealed' | 'refresh_token_sealed'>[]> {
    return this.db('upstream_oauth_tokens')
      .select('id', 'server_id', 'user_id', 'issuer', 'expires_at', 'scopes', 'status', 'refreshed_at', 'created_at')
      .where({ user_id: userId })
      .orderBy('refreshed_at', 'desc');
  }

  /** A server's token rows with their users' emails (no secrets read), shared first then by email. */
  async tokensOfServer(
    serverId: string,
  ): Promise<(Omit<DbUpstreamTokenRow, 'access_token_sealed' | 'refresh_token_sealed'> & { email: string | null })[]> {
    return this.db('upstream_oauth_tokens as t')
      .leftJoin('users as u', 'u.id', 't.user_id')
      .select(
        't.id',
        't.server_id',
        't.user_id',
        't.issuer',
        't.expires_at',
        't.scopes',
        't.status',
        't.refreshed_at',
        't.created_at',
        'u.email',
      )
      .where('t.server_id', serverId)
      .orderByRaw('t.user_id is not null, u.email');
  }

  /** The server's usable credential for catalog sync: the shared one, else the most recently refreshed active one. */
  async discoveryToken(serverId: string): Promise<DbUpstreamTokenRow | undefined> {
    return this.db('upstream_oauth_tokens')
      .select(TOKEN_COLUMNS)
      .where({ server_id: serverId, status: 'active' })
      .orderByRaw('user_id is not null, refreshed_at desc')
      .first();
  }

  /** Toolgate's signing keys (for subject tokens and its JWKS), oldest first. */
  async signingKeys(): Promise<DbSigningKeyRow[]> {
    return this.db('toolgate_signing_keys').select('kid', 'alg', 'private_key_sealed', 'public_jwk', 'created_at').orderBy('created_at');
  }

  /** Adds a signing key unless one with its kid exists (two instances creating the first key at once keep both; the oldest signs). */
  async insertSigningKey(row: Omit<DbSigningKeyRow, 'created_at'>): Promise<void> {
    await this.db('toolgate_signing_keys')
      .insert({ ...row, public_jwk: JSON.stringify(row.public_jwk) })
      .onConflict('kid')
      .ignore();
  }

  /** The id and email of a user (the claims of a subject token), when active. */
  async activeUser(userId: string): Promise<{ id: string; email: string } | undefined> {
    return this.db('users').select('id', 'email').where({ id: userId, is_active: true }).first();
  }

  /** The first active owner (whom token-exchange catalog syncs act as when no user has a token yet). */
  async firstOwner(): Promise<{ id: string; email: string } | undefined> {
    return this.db('users').select('id', 'email').where({ role: 'owner', is_active: true }).orderBy('created_at').first();
  }
}

/** One of Toolgate's signing keys: the private key sealed, the public one as a JWK. */
export interface DbSigningKeyRow {
  kid: string;
  alg: string;
  private_key_sealed: string;
  public_jwk: Record<string, unknown>;
  created_at: Date;
}
