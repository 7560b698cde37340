import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import { workerModule } from '../lib/worker-module.js';
import type { WorkerAnswer, WorkerJob } from './quickjs-worker.js';
import { errorResult, resultFromOutput, type ScriptJob, type ScriptResult } from './sandbox-types.js';

export interface QuickJsPoolOptions {
  /** Worker threads (each runs one script at a time). */
  workers: number;
  /** Memory limit of one script's QuickJS runtime, in bytes. */
  memoryBytes: number;
  /** Largest result, in bytes. */
  outputBytes: number;
  /** Jobs that may wait for a worker; more are refused at once. */
  maxQueue: number;
  logger: Logger;
}

export const QUICKJS_DEFAULTS = { workers: 2, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 * 1024, maxQueue: 256 };

/** How a worker thread loads `quickjs-worker` (tsx-registered from sources, compiled `.js` otherwise). */
const WORKER = workerModule(import.meta.url, 'quickjs-worker');

/** Longest a new worker may take to load QuickJS before it is given up (a busy host is slow). */
const STARTUP_TIMEOUT_MS = 60_000;

/** Extra time the worker gets beyond the script's deadline before it is terminated. */
const WATCHDOG_GRACE_MS = 2_000;

interface Pending {
  job: WorkerJob;
  resolve: (r: ScriptResult) => void;
  reject: (err: Error) => void;
  signal: AbortSignal | undefined;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  /** QuickJS is loaded in the worker: it takes jobs. */
  ready: boolean;
  current?: Pending;
  /** The job's deadline, or (before `ready`) the start-up deadline. */
  watchdog?: NodeJS.Timeout;
}

/**
 * The JavaScript sandbox: a small pool of worker threads running QuickJS (WebAssembly), so a
 * script never runs on the event loop that serves requests. QuickJS enforces the memory limit
 * and, through its interrupt handler, the time limit; a worker that still does not answer in
 * time (or whose caller cancels) is terminated and replaced.
 */
export class QuickJsPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: QuickJsPoolOptions) {}

  run(job: ScriptJob, signal?: AbortSignal): Promise<ScriptResult> {
    if (this.closed) return Promise.resolve(errorResult('The sandbox is shutting down'));
    if (signal?.aborted) return Promise.reject(new Error('cancelled'));
    if (this.queue.length >= this.options.maxQueue)
      return Promise.resolve(errorResult('The JavaScript sandbox is busy; try again shortly'));
    return new Promise<ScriptResult>((resolve, reject) => {
      const pending: Pending = {
        job: {
          id: this.nextId++,
          entry: job.entry,
          files: [...job.files],
          argsJson: JSON.stringify(job.args),
          timeoutMs: job.timeoutMs,
          memoryBytes: this.options.memoryBytes,
          outputBytes: this.options.outputBytes,
        },
        resolve,
        reject,
        signal,
      };
      if (signal) {
        pending.onAbort = () => this.cancel(pending);
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Terminates every worker; waiting and running jobs end with an error result. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) this.settle(p, errorResult('The sandbox is shutting down'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        clearTimeout(s.watchdog);
        if (s.current) this.settle(s.current, errorResult('The sandbox is shutting down'));
        return s.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length) {
      const slot = this.slots.find((s) => s.ready && !s.current);
      if (!slot) {
        // Jobs wait for workers that are loading; start more while there is room and work for them.
        let loading = this.slots.filter((s) => !s.ready).length;
        while (this.slots.length < this.options.workers && loading < this.queue.length) {
          this.spawn();
          loading += 1;
        }
        return;
      }
      const pending = this.queue.shift()!;
      slot.current = pending;
      slot.watchdog = setTimeout(
        () => this.replace(slot, errorResult(`The script did not finish within ${pending.job.timeoutMs} ms`)),
        pending.job.timeoutMs + WATCHDOG_GRACE_MS,
      );
      slot.watchdog.unref();
      slot.worker.postMessage(pending.job);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER.script, {
      eval: WORKER.eval,
      // The QuickJS heap lives in WebAssembly memory; the worker's own JS heap stays small.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      workerData: { memoryBytes: this.options.memoryBytes },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    // Nothing a script does reaches these streams (console is collected in the VM); drain them anyway.
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: Slot = { worker, ready: false };
    worker.on('message', (answer: WorkerAnswer) => {
      if (answer.ready) {
        clearTimeout(slot.watchdog);
        slot.ready = true;
        this.dispatch();
        return;
      }
      if (answer.recycle && answer.id === -1) {
        // Answer already sent; drop the worker once it is idle.
        if (!slot.current) this.replace(slot);
        return;
      }
      const pending = slot.current;
      if (!pending || pending.job.id !== answer.id) return;
      clearTimeout(slot.watchdog);
      slot.current = undefined;
      this.settle(pending, this.toResult(pending.job, answer));
      if (answer.recycle) this.replace(slot);
      else this.dispatch();
    });
    const failed = (reason: string) => {
      if (!this.slots.includes(slot)) return;
      this.options.logger.warn({ reason, started: slot.ready }, 'JavaScript sandbox worker ended; replacing it');
      // A worker that never started fails the oldest waiting job, so a host where QuickJS cannot
      // load answers every job with an error instead of starting workers forever.
      const waiting = slot.ready ? undefined : this.queue.shift();
      if (waiting) this.settle(waiting, errorResult('The JavaScript sandbox could not start'));
      this.replace(slot, errorResult('The script ended its sandbox (out of memory or crashed)'));
    };
    slot.watchdog = setTimeout(() => failed(`QuickJS did not load within ${STARTUP_TIMEOUT_MS} ms`), STARTUP_TIMEOUT_MS);
    slot.watchdog.unref();
    worker.on('error', (err) => failed(err.message));
    worker.on('exit', (code) => failed(`exit ${code}`));
    this.slots.push(slot);
    return slot;
  }

  /** Terminates a slot's worker (finishing its job with `result`) and lets the queue move on. */
  private replace(slot: Slot, result?: ScriptResult): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    clearTimeout(slot.watchdog);
    if (slot.current) this.settle(slot.current, result ?? errorResult('The sandbox failed'));
    slot.current = undefined;
    void slot.worker.terminate().catch(() => undefined);
    if (!this.closed) this.dispatch();
  }

  private cancel(pending: Pending): void {
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      pending.reject(new Error('cancelled'));
      return;
    }
    const slot = this.slots.find((s) => s.current === pending);
    if (!slot) return;
    slot.current = undefined;
    pending.reject(new Error('cancelled'));
    this.replace(slot);
  }

  private settle(pending: Pending, result: ScriptResult): void {
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    pending.resolve(result);
  }

  private toResult(job: WorkerJob, answer: WorkerAnswer): ScriptResult {
    if (!answer.ok) {
      const message = answer.error ?? 'The script failed';
      if (/interrupted/.test(message)) return errorResult(`The script did not finish within ${job.timeoutMs} ms`);
      if (/out of memory/i.test(message)) return errorResult(`The script ran out of memory (limit ${job.memoryBytes} bytes)`);
      return errorResult(message);
    }
    if (answer.kind === 'json') {
      try {
        return resultFromOutput(JSON.parse(answer.output ?? 'null'));
      } catch {
        return resultFromOutput(answer.output ?? '');
      }
    }
    return { content: [{ type: 'text', text: answer.output ?? '' }] };
  }
}
