/**
 * The embedded database's own thread: one PGlite instance on the data directory, answering the
 * queries `PGliteThread` posts (see pglite-thread.ts for why it runs here). Messages are handled as
 * they come; PGlite runs one statement at a time and queues the rest, and Knex sends one at a time anyway.
 */
import { inspect } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** What the main thread asks: a statement, or to close the database. */
export type PGliteCommand = { op: 'query'; sql: string; params: unknown[] | undefined } | { op: 'close' };

/** A command as posted, with the id its answer carries. */
export type PGliteRequest = PGliteCommand & { id: number };

/** What a statement gives back (the part of PGlite's result knex-pglite reads). */
export interface PGliteResult {
  rows: unknown[];
  fields: unknown[];
  affectedRows: number | undefined;
}

/** A PostgreSQL error as plain data: what structured cloning keeps of an Error is only its message. */
export interface PGliteFailure {
  message: string;
  name: string;
  fields: Record<string, string | number>;
}

/** To the main thread: `ready` once (or `failed` at start-up), then one answer per request id. */
export type PGliteAnswer =
  | { ready: true }
  | { ready: false; failure: PGliteFailure }
  | { id: number; result: PGliteResult }
  | { id: number; failure: PGliteFailure };

/** The fields of a driver error that callers read (code, constraint, detail, ...), as cloneable data. */
function failureOf(err: unknown): PGliteFailure {
  // PGlite's start-up can fail with a bare Emscripten object rather than an Error.
  const e = err instanceof Error ? err : new Error(inspect(err, { depth: 1, breakLength: Infinity }).slice(0, 300));
  const fields: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(e)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { message: e.message, name: e.name, fields };
}

/**
 * PostgreSQL settings for the embedded database. PGlite starts PostgreSQL with its defaults,
 * among them 128 MB of shared buffers, allocated inside the WebAssembly memory (which never
 * shrinks): 60 MiB of the process's RSS for a cache of pages that the file-system cache already
 * holds. Toolgate's database is small and its hot path reads nothing from it: 8 MB, and 4
 * connections (one backend serves Toolgate) for smaller shared tables (ADR 0014).
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB', '-c', 'max_connections=4'];

/**
 * Makes a new data directory in a short-lived process of its own: creating the cluster (initdb,
 * itself a WebAssembly program, then the first start) leaves 150–200 MiB of freed memory in the
 * C allocator's arenas, which a process that goes on serving keeps for its whole life (a thread
 * that ends does not give it back either). Only the first start pays the extra process.
 */
async function createInThrowawayProcess(dir: string): Promise<void> {
  const pglite = JSON.stringify(import.meta.resolve('@electric-sql/pglite'));
  const script = [
    `const { PGlite } = await import(${pglite});`,
    `const db = new PGlite(${JSON.stringify(dir)}, { startParams: ${JSON.stringify(START_PARAMS)} });`,
    'await db.waitReady;',
    'await db.close();',
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`creating the embedded database failed (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`);
}

const port = parentPort!;
const { dataDir } = workerData as { dataDir: string };
if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
  // On failure this thread's own PGlite tries again below, and its start-up error is the one reported.
  await createInThrowawayProcess(dataDir).catch(() => undefined);
}
const db = new PGlite(dataDir, { startParams: START_PARAMS });

/**
 * Full collections of this thread's heap. Starting PGlite leaves about 430 MiB of garbage
 * (the file-system image and WebAssembly module bytes it unpacked, as ArrayBuffers); on a quiet
 * thread nothing allocates enough to trigger a collection, so without this the process kept it
 * (RSS 925 MiB idle instead of 460; BENCHMARKS.md, "PGlite off the event loop").
 */
function collectStartupGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  // The first frees the ArrayBuffers; what they held alive (the compiled module's bytes) goes in the second.
  gc();
  gc();
}

db.waitReady.then(
  () => {
    port.postMessage({ ready: true } satisfies PGliteAnswer);
    // Once start-up's own promise chain has let go of what it unpacked.
    setTimeout(collectStartupGarbage, 100);
  },
  (err: unknown) => port.postMessage({ ready: false, failure: failureOf(err) } satisfies PGliteAnswer),
);

port.on('message', (req: PGliteRequest) => {
  if (req.op === 'close') {
    db.close().then(
      () => port.postMessage({ id: req.id, result: { rows: [], fields: [], affectedRows: undefined } } satisfies PGliteAnswer),
      (err: unknown) => port.postMessage({ id: req.id, failure: failureOf(err) } satisfies PGliteAnswer),
    );
    return;
  }
  db.query(req.sql, req.params).then(
    (r) =>
      port.postMessage({ id: req.id, result: { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows } } satisfies PGliteAnswer),
    (err: unknown) => port.postMessage({ id: req.id, failure: failureOf(err) } satisfies PGliteAnswer),
  );
});
