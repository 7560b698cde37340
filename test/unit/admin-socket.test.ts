import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { adminRequest, adminSocketPath, startAdminSocket, type AdminSocket } from '../../src/admin-socket.js';
import { ConflictError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';

const quiet = createLogger(
  { logLevel: 'error', logFormat: 'json' },
  new Writable({
    write: (_c, _e, cb) => cb(),
  }),
);

describe('admin socket (CLI commands while the server holds the data directory)', () => {
  let dir: string;
  let socket: AdminSocket;
  const seen: { email: string; name?: string }[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-admin-'));
    socket = await startAdminSocket({
      socketPath: adminSocketPath(dir),
      logger: quiet,
      commands: {
        bootstrap: async (input) => {
          if (input.email === 'taken@example.com') throw new ConflictError('This installation already has users; bootstrap runs only once');
          if (input.email === 'boom@example.com') throw new Error('internal detail that must not leak');
          seen.push(input);
          return { userId: 'u1', key: 'tg_usr_live_x' };
        },
        exportConfig: async (secrets) => ({ document: `toolgate_config: 1 # ${secrets}\n`, secret_references: [] }),
        importConfig: async (document, dryRun) => ({ dry_run: dryRun, changed: false, changes: [], received: document }),
      },
      describeError: (err) => (err instanceof ConflictError ? { status: 409, body: { detail: err.message } } : undefined),
    });
  });
  after(async () => {
    await socket.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('listens on <data dir>/run/admin.sock, mode 0600 in a 0700 directory', () => {
    expect(socket.path).to.equal(path.join(dir, 'run', 'admin.sock'));
    expect(fs.statSync(socket.path).isSocket()).to.equal(true);
    expect(fs.statSync(socket.path).mode & 0o777).to.equal(0o600);
    expect(fs.statSync(path.dirname(socket.path)).mode & 0o777).to.equal(0o700);
  });

  it('runs bootstrap and answers 201 with the key; a conflict is 409 with its message', async () => {
    const ok = await adminRequest(socket.path, 'POST', '/v1/bootstrap', { email: 'a@example.com', name: 'A' });
    expect(ok).to.deep.equal({ status: 201, body: { user_id: 'u1', key: 'tg_usr_live_x' } });
    expect(seen).to.deep.equal([{ email: 'a@example.com', name: 'A' }]);
    const taken = await adminRequest(socket.path, 'POST', '/v1/bootstrap', { email: 'taken@example.com' });
    expect(taken.status).to.equal(409);
    expect(taken.body.detail).to.match(/already has users/);
  });

  it('answers 400 to a bad body, 404 to an unknown command, 500 without details to a failure', async () => {
    expect((await adminRequest(socket.path, 'POST', '/v1/bootstrap', { name: 'no email' })).status).to.equal(400);
    const raw = await new Promise<number>((resolve, reject) => {
      const req = http.request({ socketPath: socket.path, method: 'POST', path: '/v1/bootstrap' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{not json');
    });
    expect(raw).to.equal(400);
    expect((await adminRequest(socket.path, 'POST', '/v1/drop-everything', {})).status).to.equal(404);
    const failed = await adminRequest(socket.path, 'POST', '/v1/bootstrap', { email: 'boom@example.com' });
    expect(failed.status).to.equal(500);
    expect(JSON.stringify(failed.body)).not.to.include('internal detail');
  });

  it('exports and imports configuration documents for the CLI', async () => {
    const exported = await adminRequest(socket.path, 'POST', '/v1/config/export', { secrets: 'env' });
    expect(exported).to.deep.equal({ status: 200, body: { document: 'toolgate_config: 1 # env\n', secret_references: [] } });
    expect((await adminRequest(socket.path, 'POST', '/v1/config/export', { secrets: 'plain' })).status).to.equal(400);
    const imported = await adminRequest(socket.path, 'POST', '/v1/config/import', { document: 'toolgate_config: 1', dry_run: true });
    expect(imported.body).to.deep.equal({ dry_run: true, changed: false, changes: [], received: 'toolgate_config: 1' });
    expect((await adminRequest(socket.path, 'POST', '/v1/config/import', { dry_run: true })).status).to.equal(400);
  });

  it('falls back to a private directory under the temp directory when the data directory path is too long for a socket', () => {
    const long = path.join(os.tmpdir(), 'x'.repeat(120));
    const fallback = adminSocketPath(long);
    expect(Buffer.byteLength(fallback)).to.be.lessThanOrEqual(100);
    expect(fallback.startsWith(os.tmpdir())).to.equal(true);
    expect(adminSocketPath(`${long}-other`)).not.to.equal(fallback);
  });
});
