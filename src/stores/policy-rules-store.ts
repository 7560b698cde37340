import type { Knex } from 'knex';

export interface DbPolicyRuleRow {
  id: string;
  name: string;
  description: string | null;
  effect: 'allow' | 'deny';
  priority: number;
  enabled: boolean;
  servers: string[];
  tools: string[];
  bundles: string[];
  teams: string[];
  users: string[];
  condition: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'name',
  'description',
  'effect',
  'priority',
  'enabled',
  'servers',
  'tools',
  'bundles',
  'teams',
  'users',
  'condition',
  'created_at',
  'updated_at',
] as const;
const LISTS = ['servers', 'tools', 'bundles', 'teams', 'users'] as const;

/** JSON columns as Knex writes them (arrays would become PostgreSQL arrays otherwise). */
function encode(patch: Partial<DbPolicyRuleRow>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...patch };
  for (const k of LISTS) if (patch[k] !== undefined) out[k] = JSON.stringify(patch[k]);
  return out;
}

/** Persistence of the tool policy rules. */
export class PolicyRulesStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** Every rule in decision order. */
  async all(): Promise<DbPolicyRuleRow[]> {
    return this.db('tool_policy_rules')
      .select(COLUMNS)
      .orderBy([{ column: 'priority' }, { column: 'id' }]);
  }

  async count(): Promise<number> {
    const row = await this.db('tool_policy_rules').count<{ count: string | number }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  async findById(id: string): Promise<DbPolicyRuleRow | undefined> {
    return this.db('tool_policy_rules').select(COLUMNS).where({ id }).first();
  }

  async insert(row: Omit<DbPolicyRuleRow, 'created_at' | 'updated_at'>, now: Date): Promise<DbPolicyRuleRow> {
    const [created] = await this.db('tool_policy_rules')
      .insert({ ...encode(row), created_at: now, updated_at: now })
      .returning(COLUMNS);
    return created as DbPolicyRuleRow;
  }

  async update(
    id: string,
    patch: Partial<Omit<DbPolicyRuleRow, 'id' | 'created_at' | 'updated_at'>>,
    now: Date,
  ): Promise<DbPolicyRuleRow | undefined> {
    const [row] = await this.db('tool_policy_rules')
      .where({ id })
      .update({ ...encode(patch), updated_at: now })
      .returning(COLUMNS);
    return row as DbPolicyRuleRow | undefined;
  }

  async delete(id: string): Promise<DbPolicyRuleRow | undefined> {
    const [row] = await this.db('tool_policy_rules').where({ id }).delete().returning(COLUMNS);
    return row as DbPolicyRuleRow | undefined;
  }
}
