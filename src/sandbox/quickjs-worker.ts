/**
 * Worker thread of the JavaScript sandbox: runs script tools in QuickJS compiled to WebAssembly.
 * A script sees only what is put into its VM — its arguments, a `console` that collects lines,
 * and the skill's other files as importable modules — no file system, network, process, timers
 * or environment. Each job gets a fresh runtime with a memory limit and an interrupt deadline.
 */
import path from 'node:path/posix';
import { parentPort, workerData } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';

/** A job from the pool. */
export interface WorkerJob {
  id: number;
  entry: string;
  files: [string, string][];
  argsJson: string;
  timeoutMs: number;
  memoryBytes: number;
  outputBytes: number;
}

/** The answer: the script's output (text, or JSON of its value), or an error message. */
export interface WorkerAnswer {
  id: number;
  ok: boolean;
  /** `main`'s value: a string as is, anything else as JSON (undefined: the console output). */
  output?: string;
  kind?: 'text' | 'json';
  error?: string;
  /** True when the worker should be replaced (a runtime could not be freed cleanly). */
  recycle?: boolean;
  /** Sent once (id 0) when QuickJS is loaded: the worker takes jobs from then on. */
  ready?: boolean;
}

const CONSOLE_LIMIT = 64 * 1024;

function errorText(vm: QuickJSContext, handle: QuickJSHandle): string {
  const e: unknown = vm.dump(handle);
  if (e && typeof e === 'object' && 'message' in e) {
    const { name, message } = e as { name?: unknown; message?: unknown };
    return `${typeof name === 'string' ? name : 'Error'}: ${String(message)}`;
  }
  return `Uncaught ${typeof e === 'string' ? e : JSON.stringify(e)}`;
}

function runJob(mod: QuickJSWASMModule, job: WorkerJob): WorkerAnswer {
  const files = new Map(job.files);
  const deadline = Date.now() + job.timeoutMs;
  const rt = mod.newRuntime();
  let recycle = false;
  const handles: QuickJSHandle[] = [];
  const keep = (h: QuickJSHandle) => (handles.push(h), h);
  let vm: QuickJSContext | undefined;
  try {
    // The script's heap stops short of the limit: the allocator and QuickJS itself live in the same
    // linear memory, whose hard maximum is the limit (see `memory` below).
    rt.setMemoryLimit(Math.max(job.memoryBytes - headroomOf(job.memoryBytes), 1024 * 1024));
    rt.setMaxStackSize(1024 * 1024);
    rt.setInterruptHandler(() => Date.now() > deadline);
    rt.setModuleLoader(
      (name) => {
        const code = files.get(name);
        if (code === undefined) return { error: new Error(`Cannot find module '${name}'`) };
        return code;
      },
      (base, requested) => {
        if (!requested.startsWith('./') && !requested.startsWith('../')) return { error: new Error(`Cannot find module '${requested}'`) };
        const resolved = path.normalize(path.join(path.dirname(base), requested));
        if (resolved.startsWith('../') || resolved.startsWith('/')) return { error: new Error(`Cannot find module '${requested}'`) };
        return resolved;
      },
    );
    vm = rt.newContext();
    const ctx = vm;

    // console.log and friends collect lines (bounded); nothing else reaches the host.
    let consoleText = '';
    const consoleObj = keep(ctx.newObject());
    for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
      const fn = ctx.newFunction(level, (...args) => {
        const line = args.map((a) => (ctx.typeof(a) === 'string' ? ctx.getString(a) : JSON.stringify(ctx.dump(a)))).join(' ');
        if (consoleText.length < CONSOLE_LIMIT) consoleText += `${line}\n`.slice(0, CONSOLE_LIMIT - consoleText.length);
      });
      ctx.setProp(consoleObj, level, fn);
      fn.dispose();
    }
    ctx.setProp(ctx.global, 'console', consoleObj);

    const code = files.get(job.entry);
    if (code === undefined) return { id: job.id, ok: false, error: `The entry script ${job.entry} is missing` };
    const evaluated = ctx.evalCode(code, job.entry, { type: 'module' });
    if (evaluated.error) {
      const message = errorText(ctx, evaluated.error);
      evaluated.error.dispose();
      return { id: job.id, ok: false, error: message };
    }
    const ns = keep(evaluated.value);
    let main = keep(ctx.getProp(ns, 'main'));
    if (ctx.typeof(main) !== 'function') main = keep(ctx.getProp(ns, 'default'));
    if (ctx.typeof(main) !== 'function')
      return { id: job.id, ok: false, error: `${job.entry} must export a function main (named or default)` };

    const parseResult = ctx.evalCode('(s) => JSON.parse(s)');
    const parse = keep(ctx.unwrapResult(parseResult));
    const argsString = keep(ctx.newString(job.argsJson));
    const args = keep(ctx.unwrapResult(ctx.callFunction(parse, ctx.undefined, argsString)));
    const called = ctx.callFunction(main, ctx.undefined, args);
    if (called.error) {
      const message = errorText(ctx, called.error);
      called.error.dispose();
      return { id: job.id, ok: false, error: message };
    }
    let value = keep(called.value);
    // An async main: run its jobs (all synchronous here, there is no I/O) until it settles.
    for (;;) {
      const state = ctx.getPromiseState(value);
      if (state.type === 'pending') {
        const ran = rt.executePendingJobs();
        if (ran.error) {
          const message = errorText(ctx, ran.error);
          ran.error.dispose();
          return { id: job.id, ok: false, error: message };
        }
        if (ran.value === 0 && ctx.getPromiseState(value).type === 'pending')
          return { id: job.id, ok: false, error: 'main returned a promise that never settles' };
        continue;
      }
      if (state.type === 'rejected') {
        const message = errorText(ctx, state.error);
        state.error.dispose();
        return { id: job.id, ok: false, error: message };
      }
      if (state.notAPromise) break;
      value = keep(state.value);
      break;
    }
    if (ctx.typeof(value) === 'undefined') return { id: job.id, ok: true, output: consoleText, kind: 'text' };
    if (ctx.typeof(value) === 'string') {
      const text = ctx.getString(value);
      if (Buffer.byteLength(text) > job.outputBytes)
        return { id: job.id, ok: false, error: `The result is larger than ${job.outputBytes} bytes` };
      return { id: job.id, ok: true, output: text, kind: 'text' };
    }
    const stringify = keep(ctx.unwrapResult(ctx.evalCode('(v) => JSON.stringify(v)')));
    const json = ctx.callFunction(stringify, ctx.undefined, value);
    if (json.error) {
      const message = errorText(ctx, json.error);
      json.error.dispose();
      return { id: job.id, ok: false, error: `The result is not JSON: ${message}` };
    }
    const text = ctx.typeof(json.value) === 'string' ? ctx.getString(json.value) : 'null';
    json.value.dispose();
    if (Buffer.byteLength(text) > job.outputBytes)
      return { id: job.id, ok: false, error: `The result is larger than ${job.outputBytes} bytes` };
    return { id: job.id, ok: true, output: text, kind: 'json' };
  } catch (err) {
    return { id: job.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    for (const h of handles.reverse()) {
      try {
        if (h.alive) h.dispose();
      } catch {
        recycle = true;
      }
    }
    try {
      vm?.dispose();
      rt.dispose();
    } catch {
      // A runtime that cannot be freed (out of memory mid-way) is dropped with its worker.
      recycle = true;
    }
    // WebAssembly memory never shrinks: a worker whose memory grew for one large script is replaced,
    // so the process gives the memory back instead of holding it until it stops.
    if ((memory as { buffer: ArrayBuffer }).buffer.byteLength > RECYCLE_BYTES) recycle = true;
    if (recycle) parentPort?.postMessage({ id: -1, ok: false, recycle: true } satisfies WorkerAnswer);
  }
}

/** What the allocator and QuickJS need beyond a script's heap, inside the memory limit. */
function headroomOf(limitBytes: number): number {
  return Math.min(8 * 1024 * 1024, Math.floor(limitBytes / 4));
}

/** WebAssembly pages (64 KiB) the worker's memory starts with: the module's own minimum. */
const INITIAL_PAGES = 256;
/** A worker whose memory grew past this after a job is replaced (its memory goes back to the system). */
const RECYCLE_BYTES = 24 * 1024 * 1024;
const { memoryBytes } = workerData as { memoryBytes: number };

// One linear memory with a hard maximum: the memory limit itself, so a script, QuickJS and its
// allocator together never hold more (a growing script fails its allocation first, at the
// script's own limit a little below), and with the maximum declared up front the engine grows it
// in place instead of copying it on every step.
// (The project's TypeScript lib has no WebAssembly declarations; Node has the global.)
const Wasm = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => unknown } }).WebAssembly;
const memory = new Wasm.Memory({ initial: INITIAL_PAGES, maximum: Math.max(INITIAL_PAGES, Math.floor(memoryBytes / 65536)) });
// The package's types describe its CommonJS build; under `import` its default export is the variant.
const modPromise = newQuickJSWASMModuleFromVariant(newVariant(variant as unknown as QuickJSSyncVariant, { wasmMemory: memory as never }));

// Jobs arrive only after `ready`, so a slow start never eats into a script's time limit. A module
// that does not load rejects here: the worker ends with that error and the pool replaces it.
const mod = await modPromise;
parentPort?.on('message', (job: WorkerJob) => parentPort?.postMessage(runJob(mod, job)));
parentPort?.postMessage({ id: 0, ok: true, ready: true } satisfies WorkerAnswer);
