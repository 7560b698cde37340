import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLock, DataDirLockedError, LOCK_FILE, readLockHolder, type LockHolder } from '../../../src/lib/data-dir-lock.js';
import { ROOT } from '../../helpers/contract.js';

/** The pid of a process that has exited (so it is certainly dead, and was certainly ours). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function writeLock(dir: string, holder: Partial<LockHolder>): void {
  const full = { hostname: os.hostname(), role: 'server', started_at: '2026-01-01T00:00:00.000Z', nonce: 'n0', ...holder };
  fs.writeFileSync(path.join(dir, LOCK_FILE), `${JSON.stringify(full)}\n`);
}

describe('DataDirLock (TOOLGATE_DATA_DIR is held by one process)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-lock-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates the directory (mode 0700) and a lock file naming this process, removed on release', () => {
    const target = path.join(dir, 'nested', 'data');
    const lock = DataDirLock.acquire(target, { role: 'server' });
    expect(fs.statSync(target).mode & 0o777).to.equal(0o700);
    const holder = readLockHolder(target)!;
    expect(holder).to.include({ pid: process.pid, hostname: os.hostname(), role: 'server' });
    expect(fs.statSync(path.join(target, LOCK_FILE)).mode & 0o777).to.equal(0o600);
    lock.release();
    expect(fs.existsSync(path.join(target, LOCK_FILE))).to.equal(false);
    expect(fs.readdirSync(target)).to.deep.equal([]);
  });

  it('refuses a second acquisition, in this process too, naming the holder in one line', () => {
    const lock = DataDirLock.acquire(dir, { role: 'server' });
    try {
      let error: unknown;
      try {
        DataDirLock.acquire(dir, { role: 'cli', command: 'bootstrap' });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(DataDirLockedError);
      const message = (error as Error).message;
      expect(message).to.include(fs.realpathSync(dir)).and.to.include(`pid ${process.pid}`).and.to.include('toolgate server');
      expect(message).not.to.include('\n');
      expect((error as DataDirLockedError).holder.nonce).to.equal(lock.holder.nonce);
    } finally {
      lock.release();
    }
    DataDirLock.acquire(dir, { role: 'cli' }).release();
  });

  it('takes over a lock whose process is dead', () => {
    writeLock(dir, { pid: deadPid() });
    const lock = DataDirLock.acquire(dir, { role: 'server' });
    expect(readLockHolder(dir)!.pid).to.equal(process.pid);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to a process that started later (pid reuse)', function () {
    if (!fs.existsSync(`/proc/${process.pid}/stat`)) this.skip();
    // Our own parent is alive; the lock claims a start time it does not have.
    writeLock(dir, { pid: process.ppid, proc_start: '1' });
    const lock = DataDirLock.acquire(dir, { role: 'server' });
    expect(readLockHolder(dir)!.pid).to.equal(process.pid);
    lock.release();
  });

  it('takes over a lock left by an earlier run of this very pid (a container restarted as pid 1)', () => {
    writeLock(dir, { pid: process.pid, nonce: 'from-an-earlier-life' });
    DataDirLock.acquire(dir, { role: 'server' }).release();
  });

  it('never takes over a live holder, nor one on another host', () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeLock(dir, { pid: sleeper.pid!, role: 'cli', command: 'rotate-master-key' });
      expect(() => DataDirLock.acquire(dir, { role: 'server' })).to.throw(DataDirLockedError, /rotate-master-key.*pid \d+/);
      writeLock(dir, { pid: deadPid(), hostname: 'elsewhere.example' });
      expect(() => DataDirLock.acquire(dir, { role: 'server' })).to.throw(DataDirLockedError, /on host elsewhere\.example/);
      // Refusals wrote nothing: the lock file is the only file, unchanged.
      expect(fs.readdirSync(dir)).to.deep.equal([LOCK_FILE]);
      expect(readLockHolder(dir)!.hostname).to.equal('elsewhere.example');
    } finally {
      sleeper.kill();
    }
  });

  it('records the admin socket and URL for other processes, atomically', () => {
    const lock = DataDirLock.acquire(dir, { role: 'server' });
    lock.update({ socket: '/x/admin.sock', url: 'http://127.0.0.1:1' });
    expect(readLockHolder(dir)).to.include({ socket: '/x/admin.sock', url: 'http://127.0.0.1:1', pid: process.pid });
    lock.release();
    expect(readLockHolder(dir)).to.equal(undefined);
  });

  it('lets exactly one of several processes racing for a stale lock win', async function () {
    this.timeout(60000);
    writeLock(dir, { pid: deadPid() });
    // The winner holds the lock until the test closes its stdin, so every racer meets it.
    const script = `
      import { DataDirLock } from ${JSON.stringify(path.join(ROOT, 'src/lib/data-dir-lock.ts'))};
      try {
        const lock = DataDirLock.acquire(process.argv[1], { role: 'server' });
        process.stdout.write('won');
        process.stdin.resume().on('end', () => lock.release());
      } catch (err) {
        process.stdout.write(err.name);
      }`;
    const children = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], { cwd: ROOT }),
    );
    const racers = children.map(
      (child) =>
        new Promise<string>((resolve) => {
          let out = '';
          child.stdout.on('data', (d) => {
            out += d;
            resolve(out);
          });
          child.once('exit', () => resolve(out));
        }),
    );
    const results = await Promise.all(racers);
    for (const child of children) child.stdin.end();
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))));
    expect(results.filter((r) => r === 'won')).to.have.length(1);
    expect(results.filter((r) => r === 'DataDirLockedError')).to.have.length(3);
  });
});
