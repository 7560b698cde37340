import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Name of the lock file inside the data directory. */
export const LOCK_FILE = 'toolgate.lock';
const TAKEOVER_FILE = `${LOCK_FILE}.takeover`;
/** A takeover (removing a dead holder's lock) takes milliseconds; a guard this old is abandoned. */
const TAKEOVER_STALE_MS = 10_000;
/** How long a lock file may stay unreadable (being written, or torn by a crash) before it counts as stale. */
const UNREADABLE_STALE_MS = 10_000;

/** Who holds a data directory: the content of the lock file (JSON). */
export interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  /** `server` (npm start) or `cli` (an admin command). */
  readonly role: 'server' | 'cli';
  /** The CLI command, for a `cli` holder. */
  readonly command?: string;
  readonly started_at: string;
  /** Start time of the holder process (Linux `/proc/<pid>/stat`), so a reused pid is not mistaken for it. */
  readonly proc_start?: string;
  /** The server's local admin socket, once it accepts commands. */
  readonly socket?: string;
  /** The server's HTTP address, once it listens. */
  readonly url?: string;
  /** Random token telling this lock apart from a later one by the same pid. */
  readonly nonce: string;
}

/** A second process (or a second start in this one) wanted a data directory that is held. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(`the data directory ${dataDir} is in use by ${describeHolder(holder)}`);
    this.name = 'DataDirLockedError';
  }
}

/** "the toolgate server (pid 123, started 2026-…)" / "toolgate bootstrap (pid 123 on host db1, …)". */
export function describeHolder(holder: LockHolder): string {
  const who = holder.role === 'server' ? 'the toolgate server' : `the toolgate command "${holder.command ?? 'cli'}"`;
  const host = holder.hostname === os.hostname() ? '' : ` on host ${holder.hostname}`;
  return `${who} (pid ${holder.pid}${host}, started ${holder.started_at})`;
}

/** Start time of a process in clock ticks since boot, where the OS tells it (Linux); undefined elsewhere. */
function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); the command name (field 2) may hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** True while a process with this pid exists (EPERM: it exists but belongs to another user). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the holder recorded in a lock file is still running. A holder on another host is assumed alive. */
export function holderAlive(holder: LockHolder): boolean {
  if (holder.hostname !== os.hostname()) return true;
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  if (holder.pid === process.pid) return held.has(holder.nonce);
  if (!pidAlive(holder.pid)) return false;
  const start = holder.proc_start === undefined ? undefined : processStart(holder.pid);
  return start === undefined || start === holder.proc_start;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string' && typeof value.nonce === 'string') return value as LockHolder;
  } catch {
    // torn or foreign content
  }
  return undefined;
}

/** The holder named in a data directory's lock file, or undefined when there is none (or it is unreadable). */
export function readLockHolder(dataDir: string): LockHolder | undefined {
  try {
    return parseHolder(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Nonces of the locks this process holds: a second acquisition in the same process is refused too. */
const held = new Map<string, DataDirLock>();

/** Writes `content` to `file` only if `file` does not exist, atomically (a reader never sees it half-written). */
function createExclusive(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Exclusive ownership of a data directory (`TOOLGATE_DATA_DIR`) by one process: the embedded
 * database is single-process, and the master key file and admin commands assume one writer.
 *
 * The lock is a file holding the owner's pid, host, start time and a nonce, created atomically
 * (hard link of a complete temporary file). A lock whose process is gone (pid dead, or reused by a
 * process that started later) is stale and taken over, under a short-lived takeover guard so two
 * newcomers cannot both take it. A holder on another host is never judged stale.
 */
export class DataDirLock {
  private released = false;

  private constructor(
    readonly dataDir: string,
    private holderValue: LockHolder,
  ) {}

  /** What the lock file says about us. */
  get holder(): LockHolder {
    return this.holderValue;
  }

  /**
   * Takes the lock (creating the directory, mode 0700, when missing). Throws DataDirLockedError
   * naming the holder when another live process holds it; writes nothing else in that case.
   */
  static acquire(dataDir: string, owner: { role: LockHolder['role']; command?: string }): DataDirLock {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const dir = fs.realpathSync(dataDir);
    const holder: LockHolder = {
      pid: process.pid,
      hostname: os.hostname(),
      role: owner.role,
      ...(owner.command ? { command: owner.command } : {}),
      started_at: new Date().toISOString(),
      ...(processStart(process.pid) ? { proc_start: processStart(process.pid) } : {}),
      nonce: randomBytes(12).toString('hex'),
    };
    const file = path.join(dir, LOCK_FILE);
    for (let attempt = 0; ; attempt += 1) {
      if (attempt > 400) throw new Error(`could not take the lock ${file}; remove it if no toolgate process uses ${dir}`);
      if (createExclusive(file, `${JSON.stringify(holder)}\n`)) {
        const lock = new DataDirLock(dir, holder);
        held.set(holder.nonce, lock);
        return lock;
      }
      let text: string;
      let mtimeMs: number;
      try {
        text = fs.readFileSync(file, 'utf8');
        mtimeMs = fs.statSync(file).mtimeMs;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
        throw err;
      }
      const current = parseHolder(text);
      if (current && holderAlive(current)) throw new DataDirLockedError(dir, current);
      if (!current && Date.now() - mtimeMs < UNREADABLE_STALE_MS) {
        sleepSync(50);
        continue;
      }
      DataDirLock.takeOver(dir, file, text);
    }
  }

  /** Removes a stale lock file, if it still has the content judged stale, under the takeover guard. */
  private static takeOver(dir: string, file: string, staleText: string): void {
    const guard = path.join(dir, TAKEOVER_FILE);
    if (!createExclusive(guard, `${process.pid}\n`)) {
      try {
        if (Date.now() - fs.statSync(guard).mtimeMs > TAKEOVER_STALE_MS) fs.rmSync(guard, { force: true });
      } catch {
        // gone meanwhile
      }
      sleepSync(20);
      return;
    }
    try {
      let text: string | undefined;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      if (text === staleText) fs.rmSync(file, { force: true });
    } finally {
      fs.rmSync(guard, { force: true });
    }
  }

  /** Records more about the holder (the admin socket, the URL) for other processes to read. */
  update(fields: Pick<LockHolder, 'socket' | 'url'>): void {
    if (this.released) return;
    const next = { ...this.holderValue, ...fields };
    const file = path.join(this.dataDir, LOCK_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(next)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
    this.holderValue = next;
  }

  /** Gives the directory up (removes the lock file if it is still ours). Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    held.delete(this.holderValue.nonce);
    const file = path.join(this.dataDir, LOCK_FILE);
    try {
      if (parseHolder(fs.readFileSync(file, 'utf8'))?.nonce === this.holderValue.nonce) fs.rmSync(file, { force: true });
    } catch {
      // already gone
    }
  }
}
