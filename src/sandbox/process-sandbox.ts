import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { errorResult, resultFromOutput, type ScriptJob, type ScriptLanguage, type ScriptResult } from './sandbox-types.js';

/** Limits of one process-sandbox run (openapi.yaml `SkillWorkflow`). */
export const PROCESS_LIMITS = {
  addressSpaceBytes: 256 * 1024 * 1024,
  processes: 64,
  fileBytes: 16 * 1024 * 1024,
  scratchBytes: 16 * 1024 * 1024,
  openFiles: 64,
  outputBytes: 1024 * 1024,
  stderrTailBytes: 4096,
} as const;

export interface ProcessSandboxOptions {
  /** Runs at once; each has its own uid when the gateway runs as root. */
  slots: number;
  /** Jobs that may wait for a slot; more are refused at once. */
  maxQueue: number;
  /** First uid (and gid) of the sandbox slots when the gateway runs as root: slot i runs as uid + i. */
  uid: number;
  logger: Logger;
}

/** The programs a process sandbox needs, found on this host. */
interface Tools {
  bwrap: string;
  prlimit: string;
  /** Interpreters by language (absolute paths inside /usr, visible in the sandbox). */
  interpreters: Partial<Record<ScriptLanguage, string[]>>;
}

/** A program's path in the system folders, or undefined (the sandboxes look only there, never on PATH). */
export function findOnPath(name: string): string | undefined {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin']) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Mounts of the root file system: /usr read-only, and the merged-/usr links or directories beside it. */
export function rootMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const d of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const p = `/${d}`;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(p), p);
    else if (st.isDirectory()) args.push('--ro-bind', p, p);
  }
  return args;
}

interface Waiting {
  job: ScriptJob;
  signal: AbortSignal | undefined;
  resolve: (r: ScriptResult) => void;
  reject: (e: Error) => void;
}

/**
 * The process sandbox for Python and shell script tools: bubblewrap (`bwrap`) with every
 * namespace unshared (no network: only a loopback interface that is down), a read-only root made
 * of /usr alone, the skill's files read-only under /skill, a size-limited scratch tmpfs at /tmp,
 * an empty environment, no new user namespaces; and `prlimit` limits on address space, CPU time,
 * processes, file size and open files. When the gateway runs as root, each slot runs as its own
 * unprivileged uid (so the process limit is per run). A run that outlives its time is killed
 * with everything it started (its PID namespace ends with it).
 */
export class ProcessSandbox {
  private readonly free: number[];
  private readonly queue: Waiting[] = [];
  private readonly children = new Set<ChildProcess>();
  private closed = false;

  private constructor(
    private readonly tools: Tools,
    private readonly options: ProcessSandboxOptions,
  ) {
    this.free = Array.from({ length: options.slots }, (_, i) => i);
  }

  /**
   * Finds bwrap and prlimit and proves a sandbox can start here (user namespaces allowed);
   * undefined when it cannot, with the reason logged.
   */
  static async detect(options: ProcessSandboxOptions): Promise<ProcessSandbox | undefined> {
    const bwrap = findOnPath('bwrap');
    const prlimit = findOnPath('prlimit');
    if (!bwrap || !prlimit) {
      options.logger.warn(
        { bwrap: !!bwrap, prlimit: !!prlimit },
        'no process sandbox (bubblewrap and prlimit are needed): python and shell script tools cannot be attached',
      );
      return undefined;
    }
    const interpreters: Tools['interpreters'] = {};
    if (fs.existsSync('/usr/bin/python3')) interpreters.python = ['/usr/bin/python3', '-I'];
    if (fs.existsSync('/usr/bin/sh') || fs.existsSync('/bin/sh')) interpreters.shell = ['/bin/sh'];
    const sandbox = new ProcessSandbox({ bwrap, prlimit, interpreters }, options);
    const probe = await sandbox.run({
      language: 'shell',
      entry: 'probe.sh',
      files: new Map([['probe.sh', 'echo ok']]),
      args: {},
      timeoutMs: 5_000,
    });
    const text = probe.content[0]?.text ?? '';
    if (probe.isError || text.trim() !== 'ok') {
      options.logger.warn(
        { reason: text.slice(0, 300) },
        'the process sandbox does not start on this host: python and shell script tools cannot be attached',
      );
      return undefined;
    }
    options.logger.info({ languages: Object.keys(interpreters) }, 'process sandbox available (bubblewrap)');
    return sandbox;
  }

  supports(language: ScriptLanguage): boolean {
    return !!this.tools.interpreters[language];
  }

  run(job: ScriptJob, signal?: AbortSignal): Promise<ScriptResult> {
    if (this.closed) return Promise.resolve(errorResult('The sandbox is shutting down'));
    if (signal?.aborted) return Promise.reject(new Error('cancelled'));
    if (!this.supports(job.language)) return Promise.resolve(errorResult(`This host cannot run ${job.language} script tools in a sandbox`));
    if (this.queue.length >= this.options.maxQueue) return Promise.resolve(errorResult('The process sandbox is busy; try again shortly'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job, signal, resolve, reject });
      this.pump();
    });
  }

  /** Kills every running sandbox. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.queue.splice(0)) w.resolve(errorResult('The sandbox is shutting down'));
    for (const c of this.children) c.kill('SIGKILL');
  }

  private pump(): void {
    while (this.queue.length && this.free.length) {
      const w = this.queue.shift()!;
      if (w.signal?.aborted) {
        w.reject(new Error('cancelled'));
        continue;
      }
      const slot = this.free.shift()!;
      this.execute(w.job, slot, w.signal)
        .then(w.resolve, w.reject)
        .finally(() => {
          this.free.push(slot);
          this.pump();
        });
    }
  }

  private async execute(job: ScriptJob, slot: number, signal: AbortSignal | undefined): Promise<ScriptResult> {
    const interpreter = this.tools.interpreters[job.language]!;
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-sandbox-'));
    try {
      const skillDir = path.join(work, 'skill');
      fs.mkdirSync(skillDir, { mode: 0o755 });
      for (const [rel, content] of job.files) {
        const target = path.join(skillDir, rel);
        if (!target.startsWith(`${skillDir}${path.sep}`)) continue;
        fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
        fs.writeFileSync(target, content, { mode: 0o644 });
      }
      const input = JSON.stringify(job.args);
      fs.writeFileSync(path.join(work, 'input.json'), input, { mode: 0o644 });
      fs.chmodSync(work, 0o755);

      const cpuSeconds = Math.max(1, Math.ceil(job.timeoutMs / 1000));
      const args = [
        `--as=${PROCESS_LIMITS.addressSpaceBytes}`,
        `--cpu=${cpuSeconds}`,
        `--nproc=${PROCESS_LIMITS.processes}`,
        `--fsize=${PROCESS_LIMITS.fileBytes}`,
        `--nofile=${PROCESS_LIMITS.openFiles}`,
        '--core=0',
        '--',
        this.tools.bwrap,
        '--unshare-all',
        '--unshare-user',
        '--disable-userns',
        '--die-with-parent',
        '--new-session',
        ...rootMounts(),
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        '--size',
        String(PROCESS_LIMITS.scratchBytes),
        '--tmpfs',
        '/tmp',
        '--ro-bind',
        skillDir,
        '/skill',
        '--ro-bind',
        path.join(work, 'input.json'),
        '/input.json',
        '--remount-ro',
        '/',
        '--chdir',
        '/tmp',
        '--clearenv',
        '--setenv',
        'PATH',
        '/usr/bin:/bin',
        '--setenv',
        'HOME',
        '/tmp',
        '--setenv',
        'LANG',
        'C.UTF-8',
        '--setenv',
        'TOOL_INPUT',
        '/input.json',
        '--setenv',
        'PYTHONDONTWRITEBYTECODE',
        '1',
        '--',
        ...interpreter,
        `/skill/${job.entry}`,
      ];
      const asRoot = process.getuid?.() === 0;
      const id = this.options.uid + slot;
      return await this.spawnAndWait(args, input, job.timeoutMs, signal, asRoot ? { uid: id, gid: id } : {});
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }

  private spawnAndWait(
    args: string[],
    input: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    ids: { uid?: number; gid?: number },
  ): Promise<ScriptResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.tools.prlimit, args, { stdio: ['pipe', 'pipe', 'pipe'], env: {}, ...ids });
      this.children.add(child);
      let stdout = Buffer.alloc(0);
      let stderr = '';
      let outcome: 'timeout' | 'output' | 'cancelled' | undefined;
      const kill = (why: typeof outcome) => {
        outcome ??= why;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => kill('timeout'), timeoutMs);
      const onAbort = () => kill('cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (chunk: Buffer) => {
        if (stdout.length + chunk.length > PROCESS_LIMITS.outputBytes) return kill('output');
        stdout = Buffer.concat([stdout, chunk]);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-PROCESS_LIMITS.stderrTailBytes);
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
      child.on('error', (err) => {
        clearTimeout(timer);
        this.children.delete(child);
        resolve(errorResult(`The sandbox could not start: ${err.message}`));
      });
      child.on('close', (code, sig) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.children.delete(child);
        if (outcome === 'cancelled') return reject(new Error('cancelled'));
        if (outcome === 'timeout') return resolve(errorResult(`The script did not finish within ${timeoutMs} ms`));
        if (outcome === 'output') return resolve(errorResult(`The script wrote more than ${PROCESS_LIMITS.outputBytes} bytes`));
        if (sig === 'SIGXCPU' || code === 128 + 24 || code === 152) return resolve(errorResult('The script used up its CPU time'));
        if (code !== 0) {
          const tail = stderr.trim();
          return resolve(errorResult(`The script failed (exit status ${code ?? sig}).${tail ? `\n${tail}` : ''}`));
        }
        resolve(resultFromOutput(stdout.toString('utf8')));
      });
    });
  }
}
