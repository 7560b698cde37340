import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import { ROOT } from './contract.js';
import { productionNodeFlags } from '../../bench/production-flags.js';

/** How long a spawned server may take to listen (a first start creates the embedded database; CI machines are shared). */
export const LISTEN_TIMEOUT_MS = 120_000;

/** A Toolgate server process started the way users start it. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Every JSON log line written to stdout so far (parsed). */
  readonly logs: Record<string, unknown>[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** The environment of a spawned process: only what it needs, plus `env`. */
export function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
}

/**
 * Spawns `command args` in the repository and resolves once the server logs `toolgate listening`
 * (stdout is a pipe, so its log lines are JSON). Rejects when it exits first.
 */
export function spawnServer(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): Promise<ServerProcess> {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a half-started server behind (it holds the data directory)
      reject(new Error(`server did not listen within ${LISTEN_TIMEOUT_MS} ms\n${stderr}`));
    }, LISTEN_TIMEOUT_MS);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // npm's banner, not a log line
      }
      logs.push(entry);
      if (entry.msg === 'toolgate listening' && typeof entry.url === 'string') {
        clearTimeout(timer);
        resolve({ child, url: entry.url, logs, stderr: () => stderr, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`server exited with ${code} before listening: ${stderr.trim()}`), { exitCode: code, stderr }));
    });
  });
}

/** Waits (up to `timeoutMs`) for a log line the server writes after it listens. */
export async function waitForLog(
  server: ServerProcess,
  match: (entry: Record<string, unknown>) => boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!server.logs.some(match)) {
    if (Date.now() > deadline) throw new Error(`no such log line within ${timeoutMs} ms: ${server.logs.map((l) => l.msg).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let built = false;

/**
 * `node <the start script's flags> dist/main.js`, the process `npm start` runs, after building
 * dist/ from the current sources as `npm start`'s `prestart` does (once per test run).
 */
export async function startMain(env: Record<string, string>, options: { detached?: boolean } = {}): Promise<ServerProcess> {
  if (!built) {
    const build = await run(process.execPath, ['scripts/build-server.mjs', '--quiet'], {});
    if (build.code !== 0) throw new Error(`scripts/build-server.mjs failed:\n${build.stderr}`);
    built = true;
  }
  return spawnServer(process.execPath, [...productionNodeFlags(), 'dist/main.js'], env, options);
}

/** Runs a command to completion: exit code, stdout, stderr. */
export function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npm run toolgate -- <args>` as the README writes it, through `node --import tsx src/cli.ts`. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], env);
}

/** Every process descending from `pid` (Linux /proc), `pid` excluded. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const current = queue.shift()!;
    for (const [child, parent] of parentOf) {
      if (parent === current) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** True while a process exists (and is not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
