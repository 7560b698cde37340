import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/contract.js';
import { startMain } from '../helpers/processes.js';
import { TEST_DATABASE_URL } from '../helpers/test-server.js';

/** Starts the server as `npm start` does (dist/main.js, built from src/) and resolves with its URL once it listens. */
async function startProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = Date.now();
  const { child, url } = await startMain(env);
  return { child, url, ms: Date.now() - started };
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the server process (npm start)', function () {
  this.timeout(180000);
  let dataDir: string;
  let env: Record<string, string>;

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-proc-'));
    env = {
      PORT: '0',
      TOOLGATE_DATA_DIR: dataDir,
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL, TOOLGATE_DB_SCHEMA: `tg_proc_${process.pid}` } : {}),
    };
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('serves /health 200 within 20 s on a fresh data directory, with no database server for the default', async () => {
    const { child, url, ms } = await startProcess(env);
    try {
      const res = await fetch(`${url}/health`);
      expect(res.status).to.equal(200);
      expect(ms).to.be.lessThan(20000);
      if (!TEST_DATABASE_URL) expect(fs.existsSync(path.join(dataDir, 'pglite'))).to.equal(true);
    } finally {
      child.kill('SIGTERM');
      await exitCode(child);
    }
  });

  it('on SIGTERM lets an in-flight request finish, refuses new ones, and exits 0', async () => {
    const { child, url } = await startProcess(env);
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const body = '{"intent":"x"}';
    // Headers and half the body: the request is in flight when the signal arrives.
    socket.write(
      `POST /api/v1/skills/generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    const exited = exitCode(child);
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    let chunks = '';
    socket.on('data', (d) => (chunks += d.toString()));
    socket.write(body.slice(5));
    await new Promise((r) => socket.once('close', r));
    expect(chunks).to.match(/^HTTP\/1\.1 401 /);
    expect(await exited).to.equal(0);
    const refused = await fetch(`${url}/health`).then(
      () => false,
      () => true,
    );
    expect(refused).to.equal(true);
  });

  it('exits with code 2 and lists every invalid variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: 'x', TOOLGATE_LOG_LEVEL: 'loud' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d.toString()));
    expect(await exitCode(child)).to.equal(2);
    expect(stderr).to.include('PORT').and.to.include('TOOLGATE_LOG_LEVEL');
  });
});
