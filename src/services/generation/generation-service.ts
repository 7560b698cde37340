import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../logger.js';
import type { DbGenerationJobRow, DbReasoningEntry, GenerationJobPatch, GenerationJobsStore } from '../../stores/generation-jobs-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import { currentActor } from '../actor-context.js';
import type { AiProvidersService } from './ai-providers-service.js';
import { pageResult, pageWindow, type PageOf, type PageQuery } from '../pagination.js';
import {
  DEFAULT_GENERATION_LIMITS,
  GenerationRunner,
  JobStopped,
  type DeploymentTarget,
  type GenerationLimits,
  type JobHandle,
} from './generation-runner.js';

type Schemas = components['schemas'];
export type GenerationJobDto = Schemas['GenerationJob'];

/** How long a running job's lease lasts without renewal; a job whose lease ran out is interrupted. */
export const LEASE_MS = 60_000;

export interface GenerationServiceOptions {
  /** Jobs that run at once in this process (TOOLGATE_GENERATION_CONCURRENCY). */
  concurrency: number;
  /** Limits of each run (repair rounds, answer size, time-outs). */
  limits?: Partial<GenerationLimits>;
  /** How often to look for pending jobs (created by other instances) and expired leases. */
  pollMs?: number;
}

interface ActiveJob {
  controller: AbortController;
  done: Promise<void>;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Server generation jobs: the API (create returns at once; list, get, cancel) and the scheduler
 * that runs at most `concurrency` jobs in this process, claiming pending jobs from the table
 * (SKIP LOCKED, so several instances share the queue). A running job holds a lease its process
 * renews; jobs whose lease runs out (the process died) are marked failed ("interrupted") by the
 * next sweep, and a stopping process marks its own running jobs so at once. Cancelling aborts the
 * job's model calls and removes anything it registered.
 */
export class GenerationService {
  private readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, ActiveJob>();
  private readonly limits: GenerationLimits;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private stopped = false;

  constructor(
    private readonly deps: {
      tx: Transactor;
      store: GenerationJobsStore;
      aiProviders: AiProvidersService;
      servers: DeploymentTarget;
      activity: ActivityLog;
      clock: Clock;
      logger: Logger;
      dataDir: string;
      /** `TOOLGATE_SANDBOX_UID` (generated servers are validated as a uid derived from it). */
      sandboxUid: number;
    },
    private readonly options: GenerationServiceOptions,
  ) {
    this.limits = { ...DEFAULT_GENERATION_LIMITS, ...options.limits };
  }

  // ---------------------------------------------------------------- the API

  async list(query: PageQuery & { status?: string | undefined }): Promise<PageOf<GenerationJobDto>> {
    const window = pageWindow(query);
    const { rows, total } = await this.deps.store.page(window, query.status);
    return pageResult(window, rows, total, toDto);
  }

  async get(id: string): Promise<GenerationJobDto> {
    const row = await this.deps.store.findById(id);
    if (!row) throw new NotFoundError('No such generation job', 'generation_job_not_found');
    return toDto(row);
  }

  /**
   * Queues a job and returns it (pending); the scheduler starts it when a slot is free. 400 for a
   * `provider_id` that does not exist or is not an `llm` provider; 409 when no `llm` provider is
   * active or `server_name` is taken.
   */
  async create(input: Schemas['GenerationJobCreate']): Promise<GenerationJobDto> {
    try {
      await this.deps.aiProviders.resolveDto('llm', input.provider_id);
    } catch (err) {
      if (input.provider_id && (err instanceof NotFoundError || (err instanceof ConflictError && err.code === 'ai_provider_wrong_type')))
        throw new BadRequestError(`provider_id ${input.provider_id} is not an llm provider`, 'invalid_provider_id');
      throw err;
    }
    if (input.server_name && (await this.deps.servers.nameTaken(input.server_name)))
      throw new ConflictError(`A server named "${input.server_name}" exists`, 'server_name_taken');
    const actor = currentActor();
    const row = await this.deps.tx.transaction(async (stores) => {
      const created = await stores.generationJobs.insert(
        {
          id: randomUUID(),
          description: input.description,
          server_name: input.server_name ?? null,
          server_name_given: input.server_name !== undefined,
          provider_id: input.provider_id ?? null,
          auto_deploy: input.auto_deploy ?? true,
          created_by: actor?.userId ?? null,
        },
        this.deps.clock.now(),
      );
      await this.deps.activity.record(stores, {
        action: 'generation_job.create',
        target: { type: 'generation_job', id: created.id, name: created.server_name },
        details: { auto_deploy: created.auto_deploy, provider_id: created.provider_id, server_name: created.server_name },
      });
      return created;
    });
    this.deps.logger.info({ jobId: row.id, autoDeploy: row.auto_deploy }, 'generation job queued');
    this.pump();
    return toDto(row);
  }

  /**
   * Cancels a pending or running job (409 once it has finished). A job running here is aborted
   * and its clean-up awaited, so nothing it deployed survives the answer; one running on another
   * instance stops at its next progress write or lease renewal.
   */
  async cancel(id: string): Promise<GenerationJobDto> {
    const now = this.deps.clock.now();
    const row = await this.deps.tx.transaction(async (stores) => {
      const found = await stores.generationJobs.findById(id, { forUpdate: true });
      if (!found) throw new NotFoundError('No such generation job', 'generation_job_not_found');
      if (TERMINAL.has(found.status)) throw new ConflictError(`The job has already finished (${found.status})`, 'generation_job_finished');
      const updated = await stores.generationJobs.update(
        id,
        { status: 'cancelled', completed_at: now, progress_message: 'Cancelled', lease_owner: null, lease_expires_at: null },
        [{ timestamp: now.toISOString(), agent: 'supervisor', phase: found.current_phase, message: 'Cancelled on request', details: {} }],
        now,
      );
      await this.deps.activity.record(stores, {
        action: 'generation_job.cancel',
        target: { type: 'generation_job', id, name: found.server_name },
        details: { status_before: found.status, phase: found.current_phase },
      });
      return updated!;
    });
    const running = this.active.get(id);
    if (running) {
      running.controller.abort('cancelled');
      await running.done;
    }
    this.deps.logger.info({ jobId: id }, 'generation job cancelled');
    return toDto(row);
  }

  // ---------------------------------------------------------------- the scheduler

  /** Fails jobs whose process died (expired leases), starts pending ones, and keeps polling. */
  start(): void {
    if (this.timer || this.stopped) return;
    const tick = (): void => {
      void this.sweep()
        .catch((err: unknown) => this.deps.logger.warn({ err: String(err) }, 'generation sweep failed'))
        .finally(() => this.pump());
      void this.renewLeases();
    };
    tick();
    this.timer = setInterval(tick, this.options.pollMs ?? 5_000);
    this.timer.unref();
  }

  /**
   * Stops the scheduler; running jobs are aborted and marked failed ("interrupted") so that no job
   * stays `running` after this process.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.pumping?.catch(() => undefined);
    const running = [...this.active.values()];
    for (const job of running) job.controller.abort('shutdown');
    await Promise.all(running.map((j) => j.done));
    const now = this.deps.clock.now();
    const message = 'Interrupted: the gateway stopped while the job was running; start a new job';
    const ids = await this.deps.store
      .failInterrupted({ owner: this.owner }, message, this.entry('supervisor', message), now)
      .catch(() => [] as string[]);
    if (ids.length) this.deps.logger.warn({ jobIds: ids }, 'generation jobs interrupted by shutdown');
  }

  /**
   * Marks failed ("interrupted") the running jobs whose process is gone: those whose lease ran out,
   * and at once those of a dead process on this host (a restart after a crash need not wait for
   * the lease). Returns their ids.
   */
  async sweep(): Promise<string[]> {
    const now = this.deps.clock.now();
    const message = 'Interrupted: the gateway process running this job stopped (restart or crash); start a new job';
    const entry = this.entry('supervisor', message);
    const dead = (await this.deps.store.runningOwners()).filter((o) => o !== this.owner && ownerIsDeadHere(o));
    const ids = [
      ...(dead.length ? await this.deps.store.failInterrupted({ owners: dead }, message, entry, now) : []),
      ...(await this.deps.store.failInterrupted({ expiredBefore: now }, message, entry, now)),
    ];
    if (ids.length) this.deps.logger.warn({ jobIds: ids }, 'generation jobs interrupted (their process is gone)');
    return ids;
  }

  /** Claims pending jobs while a slot is free (coalesced: one claim loop at a time). */
  private pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        while (!this.stopped && this.active.size < this.options.concurrency) {
          const now = this.deps.clock.now();
          const row = await this.deps.store.claimNext(this.owner, this.leaseUntil(now), now);
          if (!row) break;
          this.launch(row);
        }
      } while (this.pumpAgain && !this.stopped);
    })()
      .catch((err: unknown) => this.deps.logger.warn({ err: String(err) }, 'could not claim a generation job'))
      .finally(() => {
        this.pumping = undefined;
      });
  }

  private launch(row: DbGenerationJobRow): void {
    const controller = new AbortController();
    const handle = this.handle(row, controller);
    const done = (async () => {
      const llm = await this.deps.aiProviders.llm(row.provider_id ?? undefined).catch(async (err: unknown) => {
        const message = `No usable LLM provider: ${err instanceof Error ? err.message : String(err)}`;
        await handle.finish('failed', { error_message: message }, this.entry('supervisor', message)).catch(() => undefined);
        return undefined;
      });
      if (!llm) return;
      this.deps.logger.info({ jobId: row.id }, 'generation job started');
      await new GenerationRunner(handle, {
        llm,
        servers: this.deps.servers,
        generatedRoot: path.join(this.deps.dataDir, 'generated'),
        sandboxUid: this.deps.sandboxUid,
        limits: this.limits,
        logger: this.deps.logger,
        now: () => this.deps.clock.now(),
      }).run();
    })()
      .catch((err: unknown) => this.deps.logger.error({ jobId: row.id, err }, 'generation job runner failed'))
      .finally(() => {
        this.active.delete(row.id);
        this.pump();
      });
    this.active.set(row.id, { controller, done });
  }

  private handle(row: DbGenerationJobRow, controller: AbortController): JobHandle {
    const write = async (patch: GenerationJobPatch, entries: DbReasoningEntry[]): Promise<void> => {
      if (controller.signal.aborted) throw new JobStopped(String(controller.signal.reason));
      const now = this.deps.clock.now();
      const updated = await this.deps.store.updateRunning(row.id, this.owner, patch, entries, now, this.leaseUntil(now));
      if (!updated) {
        // Cancelled (possibly through another instance) or declared interrupted: stop the model calls.
        controller.abort('cancelled');
        throw new JobStopped('the job is no longer running here');
      }
    };
    return {
      row,
      signal: controller.signal,
      update: (patch, ...entries) => write(patch, entries),
      finish: (status, patch, ...entries) =>
        write({ ...patch, status, completed_at: this.deps.clock.now(), lease_owner: null, lease_expires_at: null }, entries),
    };
  }

  /** Renews the leases of the jobs running here; a job that is gone from under us is aborted. */
  private async renewLeases(): Promise<void> {
    for (const [id, job] of this.active) {
      const now = this.deps.clock.now();
      const row = await this.deps.store.updateRunning(id, this.owner, {}, [], now, this.leaseUntil(now)).catch(() => null);
      if (row === undefined) job.controller.abort('cancelled');
    }
  }

  private leaseUntil(now: Date): Date {
    return new Date(now.getTime() + LEASE_MS);
  }

  private entry(agent: string, message: string): DbReasoningEntry {
    return { timestamp: this.deps.clock.now().toISOString(), agent, phase: 'supervisor', message, details: {} };
  }
}

/**
 * Whether a lease owner (`host:pid:nonce`) is a process of this host that no longer runs. A pid
 * equal to ours is another process's that died (containers reuse pids): we are not its owner.
 */
function ownerIsDeadHere(owner: string): boolean {
  const parts = owner.split(':');
  parts.pop();
  const pid = Number(parts.pop());
  const host = parts.join(':');
  if (host !== os.hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The contract's form of a job row. */
function toDto(row: DbGenerationJobRow): GenerationJobDto {
  return {
    job_id: row.id,
    status: row.status,
    current_phase: row.current_phase,
    progress_percent: row.progress_percent,
    progress_message: row.progress_message,
    tools_completed: row.tools_completed,
    tools_total: row.tools_total,
    server_name: row.server_name,
    error_message: row.error_message,
    reasoning_log: row.reasoning_log,
    mcp_server_id: row.mcp_server_id,
    deployed_server: row.deployed_server,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  };
}
