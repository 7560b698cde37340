import type { Logger } from '../logger.js';
import { ProcessSandbox } from './process-sandbox.js';
import { QUICKJS_DEFAULTS, QuickJsPool } from './quickjs-pool.js';
import { errorResult, type ScriptJob, type ScriptLanguage, type ScriptResult, type ScriptRunner } from './sandbox-types.js';

export interface SandboxRunnerOptions {
  logger: Logger;
  /** `auto` detects bubblewrap at start; `off` never offers a process sandbox. */
  processSandbox: 'auto' | 'off';
  /** First uid of the process-sandbox slots when running as root. */
  sandboxUid: number;
  /** JavaScript worker threads. */
  jsWorkers?: number;
}

/**
 * Every sandbox of the process behind one runner: JavaScript in the QuickJS worker pool, Python
 * and shell in the process sandbox when this host has one. Building it does no I/O: workers start
 * on first use, and the process sandbox is detected once (a bubblewrap probe) when the server
 * starts (`detect`) or when something first needs it, so commands that never run scripts (the
 * CLI) pay nothing. A language without a sandbox is never run: `supports` says no, and attaching
 * such a tool is refused.
 */
export class SandboxRunner implements ScriptRunner {
  private readonly js: QuickJsPool;
  private processes: Promise<ProcessSandbox | undefined> | undefined;
  private closed = false;

  constructor(private readonly options: SandboxRunnerOptions) {
    this.js = new QuickJsPool({ ...QUICKJS_DEFAULTS, workers: options.jsWorkers ?? QUICKJS_DEFAULTS.workers, logger: options.logger });
  }

  /** Detects the process sandbox, once (later calls share the answer); logs what the host offers. */
  detect(): Promise<ProcessSandbox | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    if (!this.processes) {
      const { logger, processSandbox, sandboxUid } = this.options;
      if (processSandbox === 'off') {
        logger.info('process sandbox switched off: python and shell script tools cannot be attached');
        this.processes = Promise.resolve(undefined);
      } else {
        this.processes = ProcessSandbox.detect({ slots: 2, maxQueue: 64, uid: sandboxUid, logger }).catch((err: unknown) => {
          logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'process sandbox detection failed');
          return undefined;
        });
      }
    }
    return this.processes;
  }

  async supports(language: ScriptLanguage): Promise<boolean> {
    return language === 'javascript' || !!(await this.detect())?.supports(language);
  }

  async run(job: ScriptJob, signal?: AbortSignal): Promise<ScriptResult> {
    if (job.language === 'javascript') return this.js.run(job, signal);
    const processes = await this.detect();
    if (!processes?.supports(job.language)) return errorResult(`This host has no sandbox for ${job.language} script tools`);
    return processes.run(job, signal);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.js.close(), this.processes?.then((p) => p?.close())]);
  }
}
