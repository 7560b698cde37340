import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import { pageOf } from './paging.js';

export type DbGenerationStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
export type DbGenerationPhase = 'analysis' | 'design' | 'implementation' | 'validation' | 'deployment';

/** One reasoning-log entry as stored (the contract's `ReasoningEntry`). */
export interface DbReasoningEntry {
  timestamp: string;
  agent: string;
  phase: string;
  message: string;
  details: Record<string, unknown>;
}

export interface DbDeployedServer {
  server_id: string;
  server_name: string;
  mcp_endpoint: string;
  tool_count: number;
}

export interface DbGenerationJobRow {
  id: string;
  status: DbGenerationStatus;
  current_phase: DbGenerationPhase;
  progress_percent: number;
  progress_message: string | null;
  tools_completed: number;
  tools_total: number;
  description: string;
  server_name: string | null;
  server_name_given: boolean;
  provider_id: string | null;
  auto_deploy: boolean;
  error_message: string | null;
  reasoning_log: DbReasoningEntry[];
  mcp_server_id: string | null;
  deployed_server: DbDeployedServer | null;
  created_by: string | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

const COLUMNS = [
  'id',
  'status',
  'current_phase',
  'progress_percent',
  'progress_message',
  'tools_completed',
  'tools_total',
  'description',
  'server_name',
  'server_name_given',
  'provider_id',
  'auto_deploy',
  'error_message',
  'reasoning_log',
  'mcp_server_id',
  'deployed_server',
  'created_by',
  'lease_owner',
  'lease_expires_at',
  'created_at',
  'updated_at',
  'completed_at',
] as const;

/** Progress fields a runner may change (undefined: leave alone). */
export interface GenerationJobPatch {
  status?: DbGenerationStatus;
  current_phase?: DbGenerationPhase;
  progress_percent?: number;
  progress_message?: string | null;
  tools_completed?: number;
  tools_total?: number;
  server_name?: string | null;
  error_message?: string | null;
  mcp_server_id?: string | null;
  deployed_server?: DbDeployedServer | null;
  completed_at?: Date | null;
  lease_owner?: string | null;
  lease_expires_at?: Date | null;
}

export type GenerationJobInsert = Pick<
  DbGenerationJobRow,
  'id' | 'description' | 'server_name' | 'server_name_given' | 'provider_id' | 'auto_deploy' | 'created_by'
>;

/** Persistence of generation jobs: rows, paging, the lease of a running job, and the sweeps. */
export class GenerationJobsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async insert(row: GenerationJobInsert, now: Date): Promise<DbGenerationJobRow> {
    const [created] = await this.db('generation_jobs')
      .insert({
        ...row,
        status: 'pending',
        current_phase: 'analysis',
        progress_percent: 0,
        progress_message: 'Waiting for a free generation slot',
        reasoning_log: '[]',
        created_at: now,
        updated_at: now,
      })
      .returning(COLUMNS);
    return created as DbGenerationJobRow;
  }

  async findById(id: string, options: { forUpdate?: boolean } = {}): Promise<DbGenerationJobRow | undefined> {
    const q = this.db('generation_jobs').select(COLUMNS).where({ id }).first();
    if (options.forUpdate) q.forUpdate();
    return q;
  }

  /** A page of jobs, newest first, optionally of one status. */
  page(window: PageWindow, status?: string): Promise<{ rows: DbGenerationJobRow[]; total: number }> {
    return pageOf<DbGenerationJobRow>(
      () => this.db('generation_jobs').modify((q) => (status !== undefined ? q.where({ status }) : q)),
      (q) =>
        q.select(COLUMNS).orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]),
      window,
    );
  }

  /**
   * Takes the oldest pending job for `owner` (status `running`, lease until `leaseUntil`); undefined
   * when none waits. SKIP LOCKED lets several instances claim at once without taking the same job.
   */
  async claimNext(owner: string, leaseUntil: Date, now: Date): Promise<DbGenerationJobRow | undefined> {
    const next = this.db('generation_jobs')
      .select('id')
      .where({ status: 'pending' })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(1)
      .forUpdate()
      .skipLocked();
    const [row] = await this.db('generation_jobs')
      .whereIn('id', next)
      .andWhere({ status: 'pending' })
      .update({ status: 'running', lease_owner: owner, lease_expires_at: leaseUntil, updated_at: now, progress_message: 'Starting' })
      .returning(COLUMNS);
    return row as DbGenerationJobRow | undefined;
  }

  /**
   * Changes a job `owner` runs (and renews its lease), appending `log` entries; undefined when the
   * job is no longer running under that owner (it was cancelled, or declared interrupted).
   */
  async updateRunning(
    id: string,
    owner: string,
    patch: GenerationJobPatch,
    log: readonly DbReasoningEntry[],
    now: Date,
    leaseUntil: Date,
  ): Promise<DbGenerationJobRow | undefined> {
    const values: Record<string, unknown> = { ...this.writable(patch), updated_at: now, lease_expires_at: leaseUntil };
    if (log.length) values.reasoning_log = this.db.raw('reasoning_log || ?::jsonb', [JSON.stringify(log)]);
    const [row] = await this.db('generation_jobs').where({ id, status: 'running', lease_owner: owner }).update(values).returning(COLUMNS);
    return row as DbGenerationJobRow | undefined;
  }

  /** Sets fields of a job whatever its state (cancel, under the row lock of the caller's transaction). */
  async update(
    id: string,
    patch: GenerationJobPatch,
    log: readonly DbReasoningEntry[],
    now: Date,
  ): Promise<DbGenerationJobRow | undefined> {
    const values: Record<string, unknown> = { ...this.writable(patch), updated_at: now };
    if (log.length) values.reasoning_log = this.db.raw('reasoning_log || ?::jsonb', [JSON.stringify(log)]);
    const [row] = await this.db('generation_jobs').where({ id }).update(values).returning(COLUMNS);
    return row as DbGenerationJobRow | undefined;
  }

  /**
   * Marks `failed` every running job whose lease ended before `now` (its process is gone), or,
   * with `owner`, every running job of that owner (its process is stopping). Returns their ids.
   */
  async failInterrupted(
    selector: { expiredBefore: Date } | { owner: string } | { owners: readonly string[] },
    message: string,
    entry: DbReasoningEntry,
    now: Date,
  ): Promise<string[]> {
    const q = this.db('generation_jobs').where({ status: 'running' });
    if ('owner' in selector) q.andWhere({ lease_owner: selector.owner });
    else if ('owners' in selector) q.whereIn('lease_owner', [...selector.owners]);
    else q.andWhere((w) => w.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', selector.expiredBefore));
    const rows = await q
      .update({
        status: 'failed',
        error_message: message,
        progress_message: message,
        completed_at: now,
        updated_at: now,
        lease_owner: null,
        lease_expires_at: null,
        reasoning_log: this.db.raw('reasoning_log || ?::jsonb', [JSON.stringify([entry])]),
      })
      .returning(['id']);
    return (rows as { id: string }[]).map((r) => r.id);
  }

  /** The lease owners of the running jobs (the sweep checks which of them are gone). */
  async runningOwners(): Promise<string[]> {
    const rows = await this.db('generation_jobs').distinct('lease_owner').where({ status: 'running' }).whereNotNull('lease_owner');
    return (rows as { lease_owner: string }[]).map((r) => r.lease_owner);
  }

  /** Counts jobs in a status (tests and the scheduler's wake-up). */
  async countByStatus(status: DbGenerationStatus): Promise<number> {
    const row = await this.db('generation_jobs').where({ status }).count<{ count: string | number }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  private writable(patch: GenerationJobPatch): Record<string, unknown> {
    const out: Record<string, unknown> = { ...patch };
    if ('deployed_server' in patch) out.deployed_server = patch.deployed_server ? JSON.stringify(patch.deployed_server) : null;
    return out;
  }
}
