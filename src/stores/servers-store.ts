import type { Knex } from 'knex';

export type DbTransport = 'stdio' | 'streamable_http' | 'sse';

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
  call_timeout_ms: number;
  health_check_interval_seconds: number;
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
  'created_at',
  'updated_at',
] as const;

const JSON_COLUMNS = ['args', 'env', 'secret_env_keys', 'header_names', 'server_info'] as const;

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

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Persistence of registered upstream servers. Secret values arrive here already sealed. */
export class ServersStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  with(trx: Knex.Transaction): ServersStore {
    return new ServersStore(trx);
  }

  async insert(row: Omit<DbServerRow, 'created_at' | 'updated_at'>): Promise<DbServerRow> {
    const [created] = await this.db('mcp_servers').insert(toDb(row)).returning(COLUMNS);
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
  async page(options: {
    offset: number;
    limit: number;
    search?: string;
    ids?: readonly string[];
  }): Promise<{ rows: DbServerRow[]; total: number }> {
    const filter = (q: Knex.QueryBuilder) => {
      if (options.search) {
        const p = likePattern(options.search);
        q.where((w) => w.whereRaw("name ilike ? escape '\\'", [p]).orWhereRaw("description ilike ? escape '\\'", [p]));
      }
      if (options.ids) q.whereIn('id', [...options.ids]);
    };
    const countRow = await this.db('mcp_servers').modify(filter).count<{ count: string | number }[]>({ count: '*' }).first();
    const rows = await this.db('mcp_servers')
      .select(COLUMNS)
      .modify(filter)
      .orderByRaw('lower(name), id')
      .offset(options.offset)
      .limit(options.limit);
    return { rows: rows.map(fromDb), total: Number(countRow?.count ?? 0) };
  }

  async update(id: string, patch: Partial<Omit<DbServerRow, 'id' | 'created_at'>>): Promise<DbServerRow | undefined> {
    const [row] = await this.db('mcp_servers')
      .where({ id })
      .update({ ...toDb(patch), updated_at: this.db.fn.now() })
      .returning(COLUMNS);
    return row ? fromDb(row as Record<string, unknown>) : undefined;
  }

  /** Records connection facts without touching `updated_at` (which tracks admin edits). */
  async recordHealth(
    id: string,
    patch: Partial<Pick<DbServerRow, 'last_error' | 'last_connected_at' | 'protocol_version' | 'server_info' | 'latency_ms'>>,
  ): Promise<void> {
    await this.db('mcp_servers').where({ id }).update(toDb(patch));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db('mcp_servers').where({ id }).delete()) > 0;
  }
}
