import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import { matching, pageOf } from './paging.js';
import { conflictOnUnique } from './unique-violation.js';

export type DbTransport = 'stdio' | 'streamable_http' | 'sse';
export type DbAuthMode = 'none' | 'oauth_per_user' | 'oauth_shared' | 'oauth_token_exchange';

export interface DbServerRow {
  id: string;
  name: string;
  description: string | null;
  transport: DbTransport;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  secret_env_sealed: string | null;
  secret_env_keys: string[];
  cwd: string | null;
  url: string | null;
  headers_sealed: string | null;
  header_names: string[];
  enabled: boolean;
  last_error: string | null;
  last_connected_at: Date | null;
  protocol_version: string | null;
  server_info: Record<string, unknown> | null;
  latency_ms: number | null;
  /** null: the general setting `upstream_call_timeout_ms` applies. */
  call_timeout_ms: number | null;
  /** null: the general setting `health_check_interval_seconds` applies. */
  health_check_interval_seconds: number | null;
  /** What an upstream change of an approved tool's definition does: withhold it until approved, or accept it. */
  tool_changes: 'require_approval' | 'accept';
  /** Runs in Toolgate's sandbox (stdio only). */
  sandboxed: boolean;
  /** The host:port list the egress proxy lets a sandboxed server reach (empty: no network). */
  network_approved: string[];
  /** Hosts the server asked for that no admin answered yet; null: nothing pending. */
  network_requested: string[] | null;
  /** How Toolgate authorizes itself to the upstream: static headers only, or OAuth per user or shared. */
  auth_mode: DbAuthMode;
  /** The OAuth client an admin pre-registered at the upstream's authorization server (null: CIMD or DCR). */
  oauth_client_id: string | null;
  oauth_client_secret_sealed: string | null;
  oauth_token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none' | null;
  /** Scopes to ask for (empty: those of the upstream's challenge, else its `scopes_supported`). */
  oauth_scopes: string[];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'name',
  'description',
  'transport',
  'command',
  'args',
  'env',
  'secret_env_sealed',
  'secret_env_keys',
  'cwd',
  'url',
  'headers_sealed',
  'header_names',
  'enabled',
  'last_error',
  'last_connected_at',
  'protocol_version',
  'server_info',
  'latency_ms',
  'call_timeout_ms',
  'health_check_interval_seconds',
  'tool_changes',
  'sandboxed',
  'network_approved',
  'network_requested',
  'auth_mode',
  'oauth_client_id',
  'oauth_client_secret_sealed',
  'oauth_token_endpoint_auth_method',
  'oauth_scopes',
  'created_at',
  'updated_at',
] as const;

type OAuthColumn = 'auth_mode' | 'oauth_client_id' | 'oauth_client_secret_sealed' | 'oauth_token_endpoint_auth_method' | 'oauth_scopes';

const JSON_COLUMNS = [
  'args',
  'env',
  'secret_env_keys',
  'header_names',
  'server_info',
  'network_approved',
  'network_requested',
  'oauth_scopes',
] as const;

/** JSON columns go to the driver as JSON text (arrays would otherwise become PostgreSQL arrays). */
function toDb(row: Partial<DbServerRow>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const c of JSON_COLUMNS) if (out[c] !== undefined && out[c] !== null) out[c] = JSON.stringify(out[c]);
  return out;
}

function fromDb(raw: Record<string, unknown>): DbServerRow {
  const row = raw as unknown as DbServerRow;
  return { ...row, latency_ms: row.latency_ms === null ? null : Number(row.latency_ms) };
}

/** The one unique rule of servers: names, case-insensitively. */
const nameTaken = (name: string) =>
  conflictOnUnique({ mcp_servers_name_lower_key: [`A server named "${name}" exists`, 'server_name_taken'] }, [
    `A server named "${name}" exists`,
    'server_name_taken',
  ]);

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Persistence of registered upstream servers. Secret values arrive here already sealed. */
export class ServersStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** Inserts a server; its OAuth settings default to none (static headers only). */
  async insert(
    row: Omit<DbServerRow, 'created_at' | 'updated_at' | OAuthColumn> & Partial<Pick<DbServerRow, OAuthColumn>>,
  ): Promise<DbServerRow> {
    const [created] = await this.db('mcp_servers').insert(toDb(row)).returning(COLUMNS).catch(nameTaken(row.name));
    return fromDb(created as Record<string, unknown>);
  }

  async findById(id: string): Promise<DbServerRow | undefined> {
    const row = await this.db('mcp_servers').select(COLUMNS).where({ id }).first();
    return row ? fromDb(row) : undefined;
  }

  /** The row for update (locked until the transaction ends). */
  async findByIdForUpdate(id: string): Promise<DbServerRow | undefined> {
    const row = await this.db('mcp_servers').select(COLUMNS).where({ id }).forUpdate().first();
    return row ? fromDb(row) : undefined;
  }

  async findByName(name: string): Promise<DbServerRow | undefined> {
    const row = await this.db('mcp_servers').select(COLUMNS).whereRaw('lower(name) = lower(?)', [name]).first();
    return row ? fromDb(row) : undefined;
  }

  async all(): Promise<DbServerRow[]> {
    const rows = await this.db('mcp_servers').select(COLUMNS).orderBy('name');
    return rows.map(fromDb);
  }

  /** A page of servers by name; `search` matches name or description; `ids` restricts to these servers. */
  async page(
    window: PageWindow,
    filters: { search?: string | undefined; ids?: readonly string[] } = {},
  ): Promise<{ rows: DbServerRow[]; total: number }> {
    const { rows, total } = await pageOf<Record<string, unknown>>(
      () =>
        this.db('mcp_servers').modify((q: Knex.QueryBuilder) => {
          matching(q, filters.search, ['name', 'description']);
          if (filters.ids) q.whereIn('id', [...filters.ids]);
        }),
      (q) => q.select(COLUMNS).orderByRaw('lower(name), id'),
      window,
    );
    return { rows: rows.map(fromDb), total };
  }

  async update(id: string, patch: Partial<Omit<DbServerRow, 'id' | 'created_at'>>): Promise<DbServerRow | undefined> {
    const [row] = await this.db('mcp_servers')
      .where({ id })
      .update({ ...toDb(patch), updated_at: this.db.fn.now() })
      .returning(COLUMNS)
      .catch(nameTaken(patch.name ?? ''));
    return row ? fromDb(row as Record<string, unknown>) : undefined;
  }

  /** Records connection facts without touching `updated_at` (which tracks admin edits). */
  async recordHealth(
    id: string,
    patch: Partial<Pick<DbServerRow, 'last_error' | 'last_connected_at' | 'protocol_version' | 'server_info' | 'latency_ms'>>,
  ): Promise<void> {
    await this.db('mcp_servers').where({ id }).update(toDb(patch));
  }

  /** Stores the OpenAPI document of an OpenAPI server (replacing the one it had). */
  async putOpenApiDocument(serverId: string, document: string, sourceUrl: string | null): Promise<void> {
    await this.db('mcp_server_openapi')
      .insert({ server_id: serverId, document, source_url: sourceUrl })
      .onConflict('server_id')
      .merge({ document, source_url: sourceUrl, updated_at: this.db.fn.now() });
  }

  /** The OpenAPI document of an OpenAPI server; undefined for other servers. */
  async openApiDocument(serverId: string): Promise<{ document: string; source_url: string | null } | undefined> {
    return this.db('mcp_server_openapi').select('document', 'source_url').where({ server_id: serverId }).first();
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db('mcp_servers').where({ id }).delete()) > 0;
  }
}
