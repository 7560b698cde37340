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
 * and shell in the process sandbox when this host has one (detected once at start). A language
 * without a sandbox is never run: `supports` says no, and attaching such a tool is refused.
 */
export class SandboxRunner implements ScriptRunner {
  private constructor(
    private readonly js: QuickJsPool,
    private readonly processes: ProcessSandbox | undefined,
  ) {}

  static async create(options: SandboxRunnerOptions): Promise<SandboxRunner> {
    const js = new QuickJsPool({ ...QUICKJS_DEFAULTS, workers: options.jsWorkers ?? QUICKJS_DEFAULTS.workers, logger: options.logger });
    const processes =
      options.processSandbox === 'off'
        ? undefined
        : await ProcessSandbox.detect({ slots: 2, maxQueue: 64, uid: options.sandboxUid, logger: options.logger });
    if (options.processSandbox === 'off')
      options.logger.info('process sandbox switched off: python and shell script tools cannot be attached');
    return new SandboxRunner(js, processes);
  }

  supports(language: ScriptLanguage): boolean {
    return language === 'javascript' || !!this.processes?.supports(language);
  }

  run(job: ScriptJob, signal?: AbortSignal): Promise<ScriptResult> {
    if (job.language === 'javascript') return this.js.run(job, signal);
    if (!this.processes?.supports(job.language))
      return Promise.resolve(errorResult(`This host has no sandbox for ${job.language} script tools`));
    return this.processes.run(job, signal);
  }

  async close(): Promise<void> {
    await Promise.all([this.js.close(), this.processes?.close()]);
  }
}
