import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from './logger.js';

/**
 * The local admin socket: how CLI commands reach a server that holds the data directory (the
 * embedded database is single-process, so the CLI cannot open it beside the server). A unix
 * socket, mode 0600 in a directory of mode 0700: only the OS user that runs the server (and root)
 * can connect; nothing listens on the network. HTTP/1.1 with JSON bodies.
 */

/** Longest unix socket path we bind (sun_path is 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;
/** Largest request body: a configuration document (at most 1,000,000 characters) as JSON. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Commands the server answers on its admin socket. */
export interface AdminCommands {
  /** Creates the first owner and their first API key (see `bootstrapOwner`). */
  bootstrap(input: { email: string; name?: string }): Promise<{ userId: string; key: string }>;
  /** The configuration as a YAML document (`npm run toolgate -- export`). */
  exportConfig(secrets: 'reference' | 'env'): Promise<{ document: string; secret_references: string[] }>;
  /** Applies a configuration document, its `${env:…}` references already resolved by the CLI (`import`). */
  importConfig(document: string, dryRun: boolean): Promise<unknown>;
}

/** An answer of the admin socket: HTTP status and JSON body. */
export interface AdminReply {
  status: number;
  body: Record<string, unknown>;
}

/** A private directory (0700, ours, not a symlink) for the socket; throws when it cannot be made safe. */
function privateDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) throw new Error(`${dir} is not a directory of this user`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  return dir;
}

/**
 * Where the admin socket of a data directory lives: `<data dir>/run/admin.sock`, or, when that
 * path is too long for a unix socket, a private directory under the OS temp directory.
 */
export function adminSocketPath(dataDir: string): string {
  const preferred = path.join(dataDir, 'run', 'admin.sock');
  if (Buffer.byteLength(preferred) <= MAX_SOCKET_PATH) return preferred;
  const tag = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `toolgate-${process.getuid?.() ?? 'u'}-${tag}`, 'admin.sock');
}

/** A listening admin socket. */
export interface AdminSocket {
  readonly path: string;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, reply: AdminReply): void {
  const body = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('the body must be JSON'), { status: 400 });
  }
}

/** Routes one admin request. Errors that carry `status` (and `code`) are answered as such; others as 500. */
async function route(req: http.IncomingMessage, commands: AdminCommands): Promise<AdminReply> {
  if (req.method === 'POST' && req.url === '/v1/bootstrap') {
    const body = (await readJson(req)) as { email?: unknown; name?: unknown } | null;
    const email = body?.email;
    const name = body?.name;
    if (typeof email !== 'string' || (name !== undefined && typeof name !== 'string')) {
      return { status: 400, body: { detail: 'email (string) is required; name is a string' } };
    }
    const { userId, key } = await commands.bootstrap({ email, ...(name ? { name } : {}) });
    return { status: 201, body: { user_id: userId, key } };
  }
  if (req.method === 'POST' && req.url === '/v1/config/export') {
    const body = (await readJson(req)) as { secrets?: unknown } | null;
    const secrets = body?.secrets ?? 'reference';
    if (secrets !== 'reference' && secrets !== 'env') return { status: 400, body: { detail: 'secrets is reference or env' } };
    return { status: 200, body: await commands.exportConfig(secrets) };
  }
  if (req.method === 'POST' && req.url === '/v1/config/import') {
    const body = (await readJson(req)) as { document?: unknown; dry_run?: unknown } | null;
    if (typeof body?.document !== 'string' || typeof (body.dry_run ?? false) !== 'boolean')
      return { status: 400, body: { detail: 'document (string) is required; dry_run is a boolean' } };
    return { status: 200, body: (await commands.importConfig(body.document, body.dry_run === true)) as Record<string, unknown> };
  }
  return { status: 404, body: { detail: 'unknown admin command' } };
}

/**
 * Serves the admin commands on a unix socket (replacing a socket file left by a dead server: the
 * caller holds the data directory lock). `describeError` turns a command's failure into an answer
 * (for example a conflict into 409); anything it does not map is a 500 without details.
 */
export async function startAdminSocket(options: {
  socketPath: string;
  commands: AdminCommands;
  logger: Logger;
  describeError: (err: unknown) => AdminReply | undefined;
}): Promise<AdminSocket> {
  const { socketPath, commands, logger } = options;
  privateDir(path.dirname(socketPath));
  fs.rmSync(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    route(req, commands).then(
      (reply) => send(res, reply),
      (err: unknown) => {
        const status = (err as { status?: unknown }).status;
        if (typeof status === 'number' && status < 500) {
          send(res, { status, body: { detail: (err as Error).message } });
          return;
        }
        const mapped = options.describeError(err);
        if (!mapped) logger.error({ err }, 'admin command failed');
        send(res, mapped ?? { status: 500, body: { detail: 'the command failed; see the server log' } });
      },
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    path: socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        fs.rmSync(socketPath, { force: true });
      }),
  };
}

/** Sends one command to a server's admin socket. Rejects on connection failure (ENOENT, ECONNREFUSED). */
export function adminRequest(socketPath: string, method: string, urlPath: string, body?: unknown, timeoutMs = 60_000): Promise<AdminReply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        method,
        path: urlPath,
        headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`the server did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
