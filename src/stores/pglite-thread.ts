import { Worker } from 'node:worker_threads';
import { workerModule } from '../lib/worker-module.js';
import type { PGliteAnswer, PGliteCommand, PGliteFailure, PGliteRequest, PGliteResult } from './pglite-worker.js';

const WORKER = workerModule(import.meta.url, 'pglite-worker');

/** The error a statement fails with: the PostgreSQL fields (code, constraint, detail, ...) as PGlite gave them. */
function errorOf(failure: PGliteFailure): Error {
  const err = new Error(failure.message);
  err.name = failure.name;
  Object.assign(err, failure.fields);
  return err;
}

/**
 * The embedded PGlite database, run in a worker thread of its own and reached by messages. PGlite
 * is PostgreSQL compiled to WebAssembly: a statement runs synchronously wherever the instance
 * lives, and one batch of call records takes 20–60 ms (its commit alone about 10 ms). On the main
 * thread that stalled every request the gateway was serving meanwhile (BENCHMARKS.md, "PGlite off
 * the event loop"); here it costs the main thread only the message each way.
 *
 * Knex holds it as its single connection (knex-pglite reads `waitReady`, `query` and `close` of
 * its `connection.pglite`, the part of PGlite's interface this class has). When the thread dies, every waiting and
 * later statement fails with a connection error (08006), which the API answers as 503.
 */
export class PGliteThread {
  readonly waitReady: Promise<void>;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private nextId = 1;
  private dead: Error | undefined;
  private closing: Promise<void> | undefined;

  constructor(dataDir: string) {
    this.worker = new Worker(WORKER.script, {
      eval: WORKER.eval,
      workerData: { dataDir },
      // The thread's heap holds a statement's parameters and rows for a moment each: a small young
      // generation is plenty, and the default one grows to tens of MiB under a call-record load.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    // Only a statement in flight keeps the process alive (as PGlite on the main thread did not).
    this.worker.unref();
    let started!: { resolve(): void; reject(err: Error): void };
    this.waitReady = new Promise<void>((resolve, reject) => (started = { resolve, reject }));
    // A failed start is reported to whoever waits for it first (Knex acquiring its connection).
    this.waitReady.catch(() => undefined);
    this.worker.on('message', (answer: PGliteAnswer) => {
      if ('ready' in answer) {
        if (answer.ready) started.resolve();
        else started.reject(errorOf(answer.failure));
        return;
      }
      const waiter = this.waiting.get(answer.id);
      if (!waiter) return;
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) this.worker.unref();
      if ('failure' in answer) waiter.reject(errorOf(answer.failure));
      else waiter.resolve(answer.result);
    });
    const died = (why: string) => {
      if (this.dead) return;
      this.dead = Object.assign(new Error(`the embedded database stopped (${why})`), { code: '08006' });
      started.reject(this.dead);
      for (const waiter of this.waiting.values()) waiter.reject(this.dead);
      this.waiting.clear();
    };
    this.worker.on('error', (err) => died(err.message));
    this.worker.on('exit', (code) => died(`exit ${code}`));
  }

  query(sql: string, params?: unknown[]): Promise<PGliteResult> {
    return this.send({ op: 'query', sql, params }) as Promise<PGliteResult>;
  }

  /** Closes the database (flushing it to disk) and ends the thread; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.dead) return;
      const started = await this.waitReady.then(
        () => true,
        () => false,
      );
      try {
        if (started) await this.send({ op: 'close' });
      } finally {
        await this.worker.terminate();
      }
    })();
    return this.closing;
  }

  private send(command: PGliteCommand): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...command, id } satisfies PGliteRequest);
    });
  }
}
