import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOCK_FILE, readLockHolder } from '../../src/lib/data-dir-lock.js';
import { ApiClient } from '../helpers/api-client.js';
import { runCli, startMain, waitForLog, type ServerProcess } from '../helpers/processes.js';
import { dropSchema, TEST_DATABASE_URL } from '../helpers/test-server.js';

const KEY = /\b(tg_usr_live_[A-Za-z0-9_-]+)/;

/** Top-level names and contents of the files a refused process could have touched. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    out[name] = fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : 'dir';
  }
  return out;
}

describe('first run: one process per data directory, bootstrap while the server runs', function () {
  this.timeout(600000);
  let dataDir: string;
  let env: Record<string, string>;
  const schema = `tg_firstrun_${process.pid}`;
  let server: ServerProcess | undefined;
  let ownerKey = '';

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-firstrun-'));
    env = {
      PORT: '0',
      TOOLGATE_DATA_DIR: dataDir,
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL, TOOLGATE_DB_SCHEMA: schema } : {}),
    };
    server = await startMain(env);
  });
  after(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    if (TEST_DATABASE_URL) await dropSchema(TEST_DATABASE_URL, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('says what the first start is doing: the database, the migrations, the URL, what to do next', async () => {
    const next = (l: Record<string, unknown>) =>
      String(l.msg).startsWith('no users yet: create the first owner with `npm run toolgate -- bootstrap');
    await waitForLog(server!, next);
    const messages = server!.logs.map((l) => String(l.msg));
    const order = [
      TEST_DATABASE_URL ? 'using PostgreSQL' : 'creating the embedded database (first start)',
      ...(TEST_DATABASE_URL ? [] : ['embedded database ready']),
      'migrating the database',
      'database migrated',
      'toolgate listening',
    ].map((m) => messages.indexOf(m));
    expect(order.every((i) => i >= 0)).to.equal(true, messages.join(' | '));
    expect([...order].sort((a, b) => a - b)).to.deep.equal(order);
    // A normal first start warns of nothing and logs no stack trace, however slow the machine.
    expect(server!.logs.filter((l) => Number(l.level) >= 40).map((l) => l.msg)).to.deep.equal([]);
    expect(JSON.stringify(server!.logs)).to.not.match(/\n\s+at /);
    if (TEST_DATABASE_URL) {
      const using = server!.logs.find((l) => l.msg === 'using PostgreSQL')!;
      expect(String(using.database)).not.to.include('@'); // host:port/db only, never credentials
    }
  });

  it('refuses a second server on the same directory: exit 3, one line naming the holder, nothing written', async () => {
    const before = snapshot(dataDir);
    let error: (Error & { exitCode?: number; stderr?: string }) | undefined;
    try {
      await startMain(env);
    } catch (err) {
      error = err as Error & { exitCode?: number; stderr?: string };
    }
    expect(error?.exitCode).to.equal(3);
    const lines = error!.stderr!.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include(`is in use by the toolgate server (pid ${server!.child.pid}`).and.to.include(fs.realpathSync(dataDir));
    expect(snapshot(dataDir)).to.deep.equal(before);
  });

  it('refuses rotate-master-key while the server runs (exit 3, names the holder and what to do), key file untouched', async () => {
    const before = snapshot(dataDir);
    const { code, stderr } = await runCli(['rotate-master-key'], env);
    expect(code).to.equal(3);
    expect(stderr).to.include(`pid ${server!.child.pid}`).and.to.include('stop the server');
    expect(snapshot(dataDir)).to.deep.equal(before);
    expect(fs.existsSync(path.join(dataDir, 'master.key.next'))).to.equal(false);
  });

  it('runs bootstrap through the running server: the printed key works at once', async () => {
    const holder = readLockHolder(dataDir)!;
    expect(holder.socket).to.be.a('string');
    expect(fs.statSync(holder.socket!).mode & 0o777).to.equal(0o600);
    expect(fs.statSync(path.dirname(holder.socket!)).mode & 0o777).to.equal(0o700);
    const { code, stdout, stderr } = await runCli(['bootstrap', '--email', 'first@example.com', '--name', 'First Owner'], env);
    expect(code).to.equal(0, stderr);
    expect(stderr).to.include(`through the running toolgate server (pid ${server!.child.pid})`);
    ownerKey = KEY.exec(stdout)![1]!;
    const me = await new ApiClient(server!.url, ownerKey).get('/api/v1/users/me');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ email: 'first@example.com', role: 'owner' });
  });

  it('refuses a second bootstrap through the server (exit 1: the installation has users)', async () => {
    const { code, stdout, stderr } = await runCli(['bootstrap', '--email', 'second@example.com'], env);
    expect(code).to.equal(1);
    expect(stderr).to.include('already has users');
    expect(stdout).not.to.match(KEY);
  });

  it('after the server is killed (SIGKILL) its stale lock is taken over and the data is intact', async () => {
    const killedPid = server!.child.pid!;
    server!.child.kill('SIGKILL');
    await server!.exited;
    expect(readLockHolder(dataDir)?.pid).to.equal(killedPid); // left behind
    server = await startMain(env);
    expect(readLockHolder(dataDir)?.pid).to.equal(server.child.pid);
    const me = await new ApiClient(server.url, ownerKey).get('/api/v1/users/me');
    expect(me.status).to.equal(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).to.equal(false);
  });

  it('a directory held by an admin command: the server and bootstrap both refuse, and write nothing', async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-held-'));
    const holderProcess = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
    try {
      const lock = {
        pid: holderProcess.pid,
        hostname: os.hostname(),
        role: 'cli',
        command: 'rotate-master-key',
        started_at: new Date().toISOString(),
        nonce: 'held-by-test',
      };
      fs.writeFileSync(path.join(fresh, LOCK_FILE), `${JSON.stringify(lock)}\n`);
      const freshEnv = { ...env, TOOLGATE_DATA_DIR: fresh };
      let error: (Error & { exitCode?: number; stderr?: string }) | undefined;
      try {
        await startMain(freshEnv);
      } catch (err) {
        error = err as Error & { exitCode?: number; stderr?: string };
      }
      expect(error?.exitCode).to.equal(3);
      expect(error!.stderr).to.include(`the toolgate command "rotate-master-key" (pid ${holderProcess.pid}`);
      const cli = await runCli(['bootstrap', '--email', 'x@example.com'], freshEnv);
      expect(cli.code).to.equal(3);
      expect(cli.stderr).to.include('rotate-master-key');
      expect(fs.readdirSync(fresh)).to.deep.equal([LOCK_FILE]);
    } finally {
      holderProcess.kill();
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});
