import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { adminRequest } from './admin-socket.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { ConflictError } from './errors.js';
import { DataDirLock, DataDirLockedError, holderAlive, readLockHolder, type LockHolder } from './lib/data-dir-lock.js';
import { createLogger, type Logger } from './logger.js';
import { openServices, type Services } from './compose.js';
import { bootstrapOwner } from './services/identity/bootstrap-service.js';
import { decodeKey, keyId, loadMasterKey } from './lib/secret-box.js';
import { rotateMasterKey } from './services/operations/master-key-rotation.js';

const USAGE = `Usage: npm run toolgate -- <command> [options]

Commands:
  bootstrap --email <email> [--name <name>]
      Creates the first owner of a fresh installation and prints their first API key once.
      Refuses when the installation already has users. While the server runs on the same data
      directory, the command goes through the server (its admin socket in the data directory).

  rotate-master-key [--new-key-file <path>]
      Re-encrypts every stored secret under a new master key, in one transaction. The new key
      (32 bytes, base64 or hex) is read from the file; without --new-key-file a key is generated
      (only when the key lives in the data directory). With the key file in the data directory the
      file is replaced (the old key is kept as master.key.previous-<id>, mode 0600); with
      TOOLGATE_SECRET_KEY, set it to the new key afterwards. Restart every instance afterwards;
      browser sessions end (their signing key derives from the master key). Safe to re-run.
      Runs only while no server uses the data directory: stop the server first.

Exit codes: 0 done, 1 refused or failed, 2 bad usage or configuration, 3 the data directory is
held by another process that cannot do the command.
`;

/** Exit code when the data directory is held by a process that cannot run the command for us. */
const EXIT_LOCKED = 3;

/** The CLI's logger on stderr: progress (info) on a terminal, warnings only otherwise. */
function cliLogger(config: Config): Logger {
  const quiet = config.logLevel === 'info' && process.stderr.isTTY !== true;
  return createLogger({ logLevel: quiet ? 'warn' : config.logLevel, logFormat: config.logFormat }, process.stderr);
}

/**
 * Opens the services for a command that holds the data directory. Admin commands may run long
 * statements (a rotation over every sealed row), so the per-statement limit of serving is lifted.
 */
function openForCommand(config: Config, logger: Logger): Promise<Services> {
  return openServices({ ...config, dbStatementTimeoutMs: 0 }, logger);
}

async function closeForCommand(services: Services): Promise<void> {
  await services.close();
}

/** Re-encrypts every sealed column under a new master key (see USAGE). */
async function rotateMasterKeyCommand(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { 'new-key-file': { type: 'string' } } });
  const config = loadConfig();
  let lock: DataDirLock;
  try {
    lock = DataDirLock.acquire(config.dataDir, { role: 'cli', command: 'rotate-master-key' });
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    process.stderr.write(
      `toolgate: ${err.message}; rotate-master-key rewrites every secret and the key file, so it runs only while no server uses the directory: stop the server, run it, then start the server again\n`,
    );
    return EXIT_LOCKED;
  }
  try {
    return await rotateLocked(values['new-key-file'], config);
  } finally {
    lock.release();
  }
}

async function rotateLocked(newKeyFile: string | undefined, config: Config): Promise<number> {
  const current = loadMasterKey(config.secretKey, config.dataDir);
  const keyFile = path.join(config.dataDir, 'master.key');
  const pendingFile = path.join(config.dataDir, 'master.key.next');
  let next: Buffer;
  if (newKeyFile) next = decodeKey(fs.readFileSync(newKeyFile, 'utf8'));
  else if (config.secretKey) {
    process.stderr.write('TOOLGATE_SECRET_KEY is set: pass the new key with --new-key-file\n');
    return 2;
  } else {
    // Persist the generated key before the transaction, so an interrupted run can be resumed.
    try {
      fs.writeFileSync(pendingFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    next = decodeKey(fs.readFileSync(pendingFile, 'utf8'));
  }
  if (next.equals(current)) {
    process.stderr.write('The new key is the current key; nothing to do\n');
    return 2;
  }
  const services = await openForCommand(config, cliLogger(config));
  try {
    const report = await rotateMasterKey(services.tx, { current, next });
    if (!config.secretKey) {
      const backup = path.join(config.dataDir, `master.key.previous-${keyId(current)}`);
      fs.copyFileSync(keyFile, backup);
      fs.chmodSync(backup, 0o600);
      const tmp = `${keyFile}.tmp`;
      fs.writeFileSync(tmp, `${next.toString('base64')}\n`, { mode: 0o600 });
      fs.renameSync(tmp, keyFile);
      fs.rmSync(pendingFile, { force: true });
    }
    for (const c of report.columns) {
      process.stdout.write(`${c.table}.${c.column}: ${c.rewritten} re-encrypted, ${c.alreadyCurrent} already on the new key\n`);
    }
    process.stdout.write(
      `Secrets are now sealed with master key ${report.newKeyId}.\n` +
        (config.secretKey
          ? 'Set TOOLGATE_SECRET_KEY to the new key and restart every instance.\n'
          : `The key file ${keyFile} was replaced; restart every instance.\n`),
    );
    return 0;
  } finally {
    await closeForCommand(services);
  }
}

function printOwner(email: string, userId: string, key: string): void {
  process.stdout.write(
    `Created owner ${email} (${userId}).\nTheir API key, shown only this once:\n\n  ${key}\n\nUse it as: Authorization: Bearer <key>\n`,
  );
}

/** How long `bootstrap` waits for a server that holds the directory but is still starting. */
const SERVER_START_WAIT_MS = 120_000;

/**
 * `bootstrap` through the server that holds the data directory: waits until it accepts admin
 * commands (it may still be creating or migrating the database), then asks it over its socket.
 * Returns undefined when the server went away meanwhile (the caller then runs the command itself).
 */
async function bootstrapThroughServer(
  dataDir: string,
  holder: LockHolder,
  input: { email: string; name?: string },
): Promise<number | undefined> {
  const deadline = Date.now() + SERVER_START_WAIT_MS;
  let current: LockHolder | undefined = holder;
  let told = false;
  while (!current.socket) {
    if (Date.now() > deadline) {
      process.stderr.write(`toolgate: the server (pid ${current.pid}) holds ${dataDir} but did not open its admin socket; see its log\n`);
      return 1;
    }
    if (!told) {
      process.stderr.write(`Waiting for the toolgate server (pid ${current.pid}) to finish starting...\n`);
      told = true;
    }
    await new Promise((r) => setTimeout(r, 250));
    current = readLockHolder(dataDir);
    if (!current || !holderAlive(current)) return undefined;
    if (current.role !== 'server') return undefined;
  }
  process.stderr.write(`Bootstrapping through the running toolgate server (pid ${current.pid}).\n`);
  let reply;
  try {
    reply = await adminRequest(current.socket, 'POST', '/v1/bootstrap', input);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ECONNREFUSED' || code === 'ENOENT') && !holderAlive(current)) return undefined;
    throw new Error(`could not reach the server's admin socket ${current.socket}: ${(err as Error).message}`);
  }
  if (reply.status === 201) {
    printOwner(input.email, String(reply.body.user_id), String(reply.body.key));
    return 0;
  }
  process.stderr.write(`${String(reply.body.detail ?? `the server answered ${reply.status}`)}\n`);
  return 1;
}

/** `bootstrap`: locally when no process holds the data directory, else through the server that does. */
async function bootstrapCommand(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)) {
    process.stderr.write('bootstrap needs --email with a valid email address\n');
    return 2;
  }
  const input = { email: values.email, ...(values.name ? { name: values.name } : {}) };
  const config = loadConfig();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let lock: DataDirLock;
    try {
      lock = DataDirLock.acquire(config.dataDir, { role: 'cli', command: 'bootstrap' });
    } catch (err) {
      if (!(err instanceof DataDirLockedError)) throw err;
      if (err.holder.role !== 'server' || err.holder.hostname !== os.hostname()) {
        process.stderr.write(`toolgate: ${err.message}; try again once it has finished\n`);
        return EXIT_LOCKED;
      }
      const code = await bootstrapThroughServer(err.dataDir, err.holder, input);
      if (code !== undefined) return code;
      continue; // the server stopped meanwhile: the directory may be free now
    }
    try {
      const services = await openForCommand(config, cliLogger(config));
      try {
        const { userId, key } = await bootstrapOwner(services, input);
        printOwner(input.email, userId, key);
        return 0;
      } finally {
        await closeForCommand(services);
      }
    } catch (err) {
      if (err instanceof ConflictError) {
        process.stderr.write(`${err.message}\n`);
        return 1;
      }
      throw err;
    } finally {
      lock.release();
    }
  }
  process.stderr.write('toolgate: the data directory kept changing hands; try again\n');
  return 1;
}

/** Administrative commands run against the configured database (same env vars as the server). */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'rotate-master-key') return rotateMasterKeyCommand(rest);
  if (command === 'bootstrap') return bootstrapCommand(rest);
  process.stderr.write(USAGE);
  return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      err instanceof ConfigError ? `${err.message}\n` : `toolgate: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
