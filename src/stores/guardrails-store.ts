import type { Knex } from 'knex';
import type { InterceptorFailureMode, InterceptorPhase } from '../domain/guardrails.js';

/** The installation's redaction settings (one row). */
export interface DbGuardrailSettingsRow {
  redact_secrets: boolean;
  redact_pii: boolean;
  updated_at: Date;
}

/** A bundle's own redaction settings (null: as the installation). */
export interface DbBundleGuardrailsRow {
  bundle_id: string;
  redact_secrets: boolean | null;
  redact_pii: boolean | null;
  updated_at: Date;
}

/** An interceptor as stored (its secret sealed). */
export interface DbInterceptorRow {
  id: string;
  name: string;
  description: string | null;
  url: string;
  secret_sealed: string;
  phases: InterceptorPhase[];
  bundles: string[];
  timeout_ms: number;
  failure_mode: InterceptorFailureMode;
  priority: number;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const INTERCEPTOR_COLUMNS = [
  'id',
  'name',
  'description',
  'url',
  'secret_sealed',
  'phases',
  'bundles',
  'timeout_ms',
  'failure_mode',
  'priority',
  'enabled',
  'created_at',
  'updated_at',
] as const;

/** JSON columns as Knex writes them (arrays would become PostgreSQL arrays otherwise). */
function encode(patch: Partial<DbInterceptorRow>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...patch };
  if (patch.phases !== undefined) out.phases = JSON.stringify(patch.phases);
  if (patch.bundles !== undefined) out.bundles = JSON.stringify(patch.bundles);
  return out;
}

/** Persistence of the guardrails: redaction settings (installation, bundles) and interceptors. */
export class GuardrailsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** The installation's settings; undefined until they were first written (the defaults apply). */
  async settings(): Promise<DbGuardrailSettingsRow | undefined> {
    return this.db('guardrail_settings').select('redact_secrets', 'redact_pii', 'updated_at').where({ id: 1 }).first();
  }

  async putSettings(values: { redact_secrets: boolean; redact_pii: boolean }, now: Date): Promise<DbGuardrailSettingsRow> {
    const [row] = await this.db('guardrail_settings')
      .insert({ id: 1, ...values, updated_at: now })
      .onConflict('id')
      .merge()
      .returning(['redact_secrets', 'redact_pii', 'updated_at']);
    return row as DbGuardrailSettingsRow;
  }

  /** Every bundle's own settings. */
  async bundleSettings(): Promise<DbBundleGuardrailsRow[]> {
    return this.db('bundle_guardrails').select('bundle_id', 'redact_secrets', 'redact_pii', 'updated_at');
  }

  async bundleSettingsOf(bundleId: string): Promise<DbBundleGuardrailsRow | undefined> {
    return this.db('bundle_guardrails')
      .select('bundle_id', 'redact_secrets', 'redact_pii', 'updated_at')
      .where({ bundle_id: bundleId })
      .first();
  }

  /** Writes a bundle's settings; both null removes the row (the bundle follows the installation). */
  async putBundleSettings(
    bundleId: string,
    values: { redact_secrets: boolean | null; redact_pii: boolean | null },
    now: Date,
  ): Promise<void> {
    if (values.redact_secrets === null && values.redact_pii === null) {
      await this.db('bundle_guardrails').where({ bundle_id: bundleId }).delete();
      return;
    }
    await this.db('bundle_guardrails')
      .insert({ bundle_id: bundleId, ...values, updated_at: now })
      .onConflict('bundle_id')
      .merge();
  }

  /** Every interceptor in call order (priority, then id). */
  async interceptors(): Promise<DbInterceptorRow[]> {
    return this.db('guardrail_interceptors')
      .select(INTERCEPTOR_COLUMNS)
      .orderBy([{ column: 'priority' }, { column: 'id' }]);
  }

  async countInterceptors(): Promise<number> {
    const row = await this.db('guardrail_interceptors').count<{ count: string | number }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  async findInterceptor(id: string): Promise<DbInterceptorRow | undefined> {
    return this.db('guardrail_interceptors').select(INTERCEPTOR_COLUMNS).where({ id }).first();
  }

  async insertInterceptor(row: Omit<DbInterceptorRow, 'created_at' | 'updated_at'>, now: Date): Promise<DbInterceptorRow> {
    const [created] = await this.db('guardrail_interceptors')
      .insert({ ...encode(row), created_at: now, updated_at: now })
      .returning(INTERCEPTOR_COLUMNS);
    return created as DbInterceptorRow;
  }

  async updateInterceptor(
    id: string,
    patch: Partial<Omit<DbInterceptorRow, 'id' | 'created_at' | 'updated_at'>>,
    now: Date,
  ): Promise<DbInterceptorRow | undefined> {
    const [row] = await this.db('guardrail_interceptors')
      .where({ id })
      .update({ ...encode(patch), updated_at: now })
      .returning(INTERCEPTOR_COLUMNS);
    return row as DbInterceptorRow | undefined;
  }

  async deleteInterceptor(id: string): Promise<DbInterceptorRow | undefined> {
    const [row] = await this.db('guardrail_interceptors').where({ id }).delete().returning(INTERCEPTOR_COLUMNS);
    return row as DbInterceptorRow | undefined;
  }
}
