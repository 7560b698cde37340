import { randomUUID } from 'node:crypto';
import { JSONRPCErrorException } from 'json-rpc-2.0';
import { DownstreamRpcError, relayedCapabilities, type DownstreamPeer, type ToolCallResult } from '../domain/upstream-call.js';
import { RpcCode } from './protocol.js';

/** Where a task is in its life (MCP tasks: 2025-11-25 and the 2026-07-28 extension share the names). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error a task ended with (`status: failed`). */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** One task of one caller: a tool call the gateway runs in the background. */
export interface Task {
  readonly id: string;
  /** Who may see it: route scope and credential (a bundle and its key, a user and their key). */
  readonly owner: string;
  /** The tool's name as the caller knows it. */
  readonly toolName: string;
  readonly createdAt: Date;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  status: TaskStatus;
  statusMessage: string | undefined;
  lastUpdatedAt: Date;
  result: ToolCallResult | undefined;
  error: TaskError | undefined;
  /** Settles when the task reaches a terminal status. */
  readonly settled: Promise<void>;
}

/** A request of the task's tool call for the caller's input, waiting for `tasks/update`. */
interface PendingInput {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (err: Error) => void;
  /** Handed to a 2025-11-25 `tasks/result` to put to the caller (so no other one asks it again). */
  claimed: boolean;
}

/** An input request of a task, as a 2025-11-25 `tasks/result` puts it to the caller. */
export interface ClaimedInput {
  readonly key: string;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
}

interface Entry {
  readonly task: Task;
  readonly controller: AbortController;
  readonly settle: () => void;
  readonly expiry: NodeJS.Timeout;
  /** Input requests by the key the caller answers them with. */
  readonly pending: Map<string, PendingInput>;
  inputSeq: number;
  /** Called when an input request arrives or the task ends (2025-11-25 `tasks/result` waits on them). */
  readonly listeners: Set<() => void>;
}

/** Limits of the registry (from the process configuration). */
export interface TaskRegistryOptions {
  /** Retention when the caller asks for none (ms from creation). */
  readonly defaultTtlMs: number;
  /** Longest retention a caller may ask for; a longer request is cut to it. */
  readonly maxTtlMs: number;
  /** Suggested polling interval told to callers. */
  readonly pollIntervalMs: number;
  /** Most tasks one caller holds at once (terminal ones count until they expire). */
  readonly maxPerOwner: number;
}

export const TASK_DEFAULTS: TaskRegistryOptions = {
  defaultTtlMs: 60 * 60_000,
  maxTtlMs: 24 * 60 * 60_000,
  pollIntervalMs: 1000,
  maxPerOwner: 100,
};

const isTerminal = (s: TaskStatus) => s !== 'working' && s !== 'input_required';

/**
 * The tasks of this instance's callers (MCP tasks). A task runs one tool call in the background
 * under its own cancellation, independent of the request that created it; its outcome is kept
 * until the task's TTL (from creation) runs out. Every lookup is by owner and id, so a caller can
 * never see, read or cancel another caller's task: an id of someone else's task is simply unknown.
 * Tasks live in memory: a restart or another instance does not know them (documented).
 */
export class TaskRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly perOwner = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: TaskRegistryOptions = TASK_DEFAULTS) {}

  /** The TTL a task gets when the caller asked for `requested` (ms; anything not a positive number means the default). */
  ttlFor(requested: unknown): number {
    if (typeof requested !== 'number' || !Number.isFinite(requested) || requested <= 0) return this.options.defaultTtlMs;
    return Math.min(Math.floor(requested), this.options.maxTtlMs) || 1;
  }

  /**
   * Creates a task of `owner` and starts `run` with the task's signal. `run` resolves with the
   * tool's result (a tool error is a completed task with `isError`) or rejects with a JSON-RPC
   * error (a failed task). Full: -32603 is not right for a caller's limit, so the caller gets -32003.
   */
  create(owner: string, toolName: string, ttlMs: number, run: (signal: AbortSignal, task: Task) => Promise<ToolCallResult>): Task {
    if (this.closed) throw new JSONRPCErrorException('The gateway is shutting down', RpcCode.UpstreamUnavailable);
    const held = this.perOwner.get(owner) ?? 0;
    if (held >= this.options.maxPerOwner)
      throw new JSONRPCErrorException(
        `Too many tasks: at most ${this.options.maxPerOwner} are kept per caller; wait for some to expire`,
        RpcCode.RateLimited,
      );
    const now = new Date();
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const task: Task = {
      id: randomUUID(),
      owner,
      toolName,
      createdAt: now,
      ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
      status: 'working',
      statusMessage: undefined,
      lastUpdatedAt: now,
      result: undefined,
      error: undefined,
      settled,
    };
    const controller = new AbortController();
    const expiry = setTimeout(() => this.expire(task.id), ttlMs);
    expiry.unref();
    this.entries.set(task.id, { task, controller, settle, expiry, pending: new Map(), inputSeq: 0, listeners: new Set() });
    this.perOwner.set(owner, held + 1);
    let running: Promise<ToolCallResult>;
    try {
      running = run(controller.signal, task);
    } catch (err) {
      running = Promise.reject(err);
    }
    running.then(
      (result) => this.finish(task.id, 'completed', { result }),
      (err: unknown) => this.finish(task.id, 'failed', { error: asTaskError(err) }),
    );
    return task;
  }

  /** The task `id` of `owner`, or undefined (unknown, expired, or someone else's). */
  get(owner: string, id: unknown): Task | undefined {
    if (typeof id !== 'string') return undefined;
    const entry = this.entries.get(id);
    return entry && entry.task.owner === owner ? entry.task : undefined;
  }

  /** The tasks of `owner`, newest first. */
  list(owner: string): Task[] {
    const out: Task[] = [];
    for (const { task } of this.entries.values()) if (task.owner === owner) out.push(task);
    return out.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  /** Cancels a working task of `owner` (its tool call is cancelled); false when it is already terminal. */
  cancel(owner: string, id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry || entry.task.owner !== owner || isTerminal(entry.task.status)) return false;
    this.finish(id, 'cancelled', { statusMessage: 'Cancelled by the caller' });
    entry.controller.abort();
    return true;
  }

  /**
   * The caller of a task as its tool call sees it (server-to-client requests of the upstream):
   * each request parks the task in `input_required` with the request under a fresh key, until
   * the caller answers it with `tasks/update`. Capabilities are those the caller declared when it
   * created the task.
   */
  peer(task: Task, capabilities: Record<string, unknown> | undefined): DownstreamPeer {
    return {
      has: (capability) => typeof capabilities?.[capability] === 'object' && capabilities[capability] !== null,
      request: (method, params, signal) => this.ask(task.id, method, params, signal),
      log: () => undefined,
      affinity: () => {
        const relayed = relayedCapabilities(capabilities);
        return relayed ? { key: `task owner ${task.owner}`, owner: task.owner, capabilities: relayed } : undefined;
      },
    };
  }

  /** The input requests a task waits on, by key (empty unless it is `input_required`). */
  inputRequests(task: Task): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [key, input] of this.entries.get(task.id)?.pending ?? [])
      out[key] = { method: input.method, ...(input.params ? { params: input.params } : {}) };
    return out;
  }

  /**
   * Hands the caller's answers to the input requests they name (others are ignored); the task
   * works again once nothing is pending. Returns false for a task `owner` does not have.
   */
  respond(owner: string, id: string, responses: Record<string, Record<string, unknown>>): boolean {
    const entry = this.entries.get(id);
    if (!entry || entry.task.owner !== owner) return false;
    for (const [key, value] of Object.entries(responses)) {
      const input = entry.pending.get(key);
      if (!input) continue;
      entry.pending.delete(key);
      input.resolve(value);
    }
    this.afterInput(entry);
    return true;
  }

  /**
   * The input requests of a task of `owner` no `tasks/result` has put to the caller yet, now
   * claimed by the caller's `tasks/result` (2025-11-25), which relays each and settles it with
   * `respond` or `refuse`, or gives it back with `unclaim` when it could not reach the caller.
   */
  claimInputs(owner: string, id: string): ClaimedInput[] {
    const entry = this.entries.get(id);
    if (!entry || entry.task.owner !== owner) return [];
    const out: ClaimedInput[] = [];
    for (const [key, input] of entry.pending) {
      if (input.claimed) continue;
      input.claimed = true;
      out.push({ key, method: input.method, params: input.params });
    }
    return out;
  }

  /** Gives a claimed input request back (the `tasks/result` that claimed it ended first). */
  unclaim(id: string, key: string): void {
    const input = this.entries.get(id)?.pending.get(key);
    if (input) input.claimed = false;
  }

  /** Fails an input request with the caller's error answer (it goes back to the upstream). */
  refuse(owner: string, id: string, key: string, err: DownstreamRpcError): void {
    const entry = this.entries.get(id);
    if (!entry || entry.task.owner !== owner) return;
    const input = entry.pending.get(key);
    if (!input) return;
    entry.pending.delete(key);
    input.reject(err);
    this.afterInput(entry);
  }

  /** Resolves at the next input request of the task or its end (at once when it has ended). */
  changed(task: Task): Promise<void> {
    const entry = this.entries.get(task.id);
    if (!entry || isTerminal(task.status)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        entry.listeners.delete(done);
        resolve();
      };
      entry.listeners.add(done);
    });
  }

  private ask(
    id: string,
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const entry = this.entries.get(id);
    if (!entry || isTerminal(entry.task.status))
      return Promise.reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'The task has ended'));
    entry.inputSeq += 1;
    const key = `input-${entry.inputSeq}`;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (entry.pending.delete(key)) this.afterInput(entry);
        reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'The request was cancelled'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      entry.pending.set(key, {
        method,
        params,
        resolve: (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
        claimed: false,
      });
      for (const listener of entry.listeners) listener();
      entry.task.status = 'input_required';
      entry.task.statusMessage = "Waiting for the caller's input (tasks/update)";
      entry.task.lastUpdatedAt = new Date();
    });
  }

  private afterInput(entry: Entry): void {
    if (entry.task.status !== 'input_required' || entry.pending.size > 0) return;
    entry.task.status = 'working';
    entry.task.statusMessage = undefined;
    entry.task.lastUpdatedAt = new Date();
  }

  /** Cancels every working task and forgets them all (shutdown). */
  close(): void {
    this.closed = true;
    for (const [id, entry] of this.entries) {
      if (!isTerminal(entry.task.status)) {
        this.finish(id, 'cancelled', { statusMessage: 'The gateway shut down' });
        entry.controller.abort();
      }
      clearTimeout(entry.expiry);
    }
    this.entries.clear();
    this.perOwner.clear();
  }

  /** Number of tasks kept (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  private finish(id: string, status: TaskStatus, outcome: { result?: ToolCallResult; error?: TaskError; statusMessage?: string }): void {
    const entry = this.entries.get(id);
    if (!entry || isTerminal(entry.task.status)) return;
    const { task } = entry;
    task.status = status;
    task.lastUpdatedAt = new Date();
    task.result = outcome.result;
    task.error = outcome.error;
    task.statusMessage = outcome.statusMessage ?? (outcome.error ? outcome.error.message : undefined);
    for (const input of entry.pending.values()) input.reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'The task has ended'));
    entry.pending.clear();
    entry.settle();
    for (const listener of [...entry.listeners]) listener();
  }

  private expire(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    if (!isTerminal(entry.task.status)) {
      this.finish(id, 'cancelled', { statusMessage: 'The task outlived its TTL' });
      entry.controller.abort();
    }
    this.entries.delete(id);
    const left = (this.perOwner.get(entry.task.owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(entry.task.owner, left);
    else this.perOwner.delete(entry.task.owner);
  }
}

function asTaskError(err: unknown): TaskError {
  if (err instanceof JSONRPCErrorException)
    return err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data };
  return { code: RpcCode.InternalError, message: 'Internal error' };
}
