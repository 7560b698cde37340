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
import { parse as parseYaml } from 'yaml';
import { resolveEnvReferences } from './domain/config-document.js';
import { RequestValidationError } from './errors.js';

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

  export [--secrets reference|env] [--out <file>]
      Writes the configuration (settings, servers, tool selection, bundles) as a YAML document to
      stdout or the file. Secrets are references, never values: secret://… (a value this
      installation holds; the default) or \${env:NAME} (--secrets env: a variable the importing
      CLI reads). Runs through the server when it holds the data directory.

  import <file|-> [--dry-run]
      Applies a configuration document in one transaction: what differs from the installation is
      created or updated; nothing the document does not name is deleted. Prints each change
      (+ created, ~ updated, - removed); with --dry-run nothing is written. \${env:NAME}
      references are read from this command's environment. Runs through the server when it holds
      the data directory (its changes then take effect at once).

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

/**
 * Runs a command against the installation: through the server's admin socket when a server on
 * this host holds the data directory, else locally with the directory held for the command.
 */
async function onInstallation(
  name: string,
  local: (services: Services) => Promise<number>,
  remote: (socket: string) => Promise<number>,
): Promise<number> {
  const config = loadConfig();
  let lock: DataDirLock;
  try {
    lock = DataDirLock.acquire(config.dataDir, { role: 'cli', command: name });
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    if (err.holder.role === 'server' && err.holder.hostname === os.hostname() && err.holder.socket) return remote(err.holder.socket);
    process.stderr.write(`toolgate: ${err.message}; try again once it has finished\n`);
    return EXIT_LOCKED;
  }
  try {
    const services = await openForCommand(config, cliLogger(config));
    try {
      return await local(services);
    } finally {
      await closeForCommand(services);
    }
  } finally {
    lock.release();
  }
}

/** Prints the 422 issues of a document, one a line, with where in the document each is. */
function printIssues(issues: readonly { loc: readonly (string | number)[]; msg: string }[]): void {
  for (const i of issues) {
    const where = i.loc.slice(i.loc[0] === 'body' && i.loc[1] === 'document' ? 2 : 0).join('.');
    process.stderr.write(`  ${where || '(document)'}: ${i.msg}\n`);
  }
}

/** `export`: the configuration as YAML on stdout or in a file. */
async function exportCommand(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { secrets: { type: 'string' }, out: { type: 'string' } } });
  const secrets = values.secrets ?? 'reference';
  if (secrets !== 'reference' && secrets !== 'env') {
    process.stderr.write('export: --secrets is reference or env\n');
    return 2;
  }
  const write = (exported: { document: string; secret_references: string[] }): number => {
    if (values.out) fs.writeFileSync(values.out, exported.document, { mode: 0o644 });
    else process.stdout.write(exported.document);
    if (exported.secret_references.length)
      process.stderr.write(`The document holds ${exported.secret_references.length} secret reference(s), no secret values.\n`);
    return 0;
  };
  return onInstallation(
    'export',
    async (services) => write(await services.configDocuments.export(loadConfig().publicUrl ?? null, secrets)),
    async (socket) => {
      const reply = await adminRequest(socket, 'POST', '/v1/config/export', { secrets });
      if (reply.status !== 200) {
        process.stderr.write(`${String(reply.body.detail ?? `the server answered ${reply.status}`)}\n`);
        return 1;
      }
      return write(reply.body as unknown as { document: string; secret_references: string[] });
    },
  );
}

/** `import`: applies a document (its \${env:…} references resolved here) and prints the changes. */
async function importCommand(rest: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: rest, options: { 'dry-run': { type: 'boolean' } }, allowPositionals: true });
  const file = positionals[0];
  if (!file || positionals.length > 1) {
    process.stderr.write('import needs one file (or - for stdin)\n');
    return 2;
  }
  const text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    process.stderr.write(`import: ${file} is not a YAML or JSON document: ${(err as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  // Environment references are this command's to resolve: the server never reads its own environment for them.
  const { missing } = resolveEnvReferences(doc, process.env);
  if (missing.length) {
    process.stderr.write('import: these environment variables are not set:\n');
    for (const m of missing) process.stderr.write(`  ${m.name} (${m.loc.join('.')})\n`);
    return 2;
  }
  const dryRun = values['dry-run'] === true;
  const document = JSON.stringify(doc);
  const report = (result: {
    dry_run: boolean;
    changed: boolean;
    changes: { kind: string; name: string; action: string; fields: string[] }[];
  }): number => {
    const sign = { create: '+', update: '~', remove: '-' } as Record<string, string>;
    for (const c of result.changes)
      process.stdout.write(`${sign[c.action] ?? '?'} ${c.kind} ${c.name}${c.fields.length ? ` (${c.fields.join(', ')})` : ''}\n`);
    process.stdout.write(
      !result.changed
        ? 'No changes.\n'
        : result.dry_run
          ? `${result.changes.length} change(s) would be made (dry run).\n`
          : `${result.changes.length} change(s) applied.\n`,
    );
    return 0;
  };
  return onInstallation(
    'import',
    async (services) => {
      try {
        return report(await services.configDocuments.import(document, { dryRun, userId: null, live: false }));
      } catch (err) {
        if (!(err instanceof RequestValidationError)) throw err;
        process.stderr.write('import: the document was refused:\n');
        printIssues(err.issues);
        return 1;
      }
    },
    async (socket) => {
      const reply = await adminRequest(socket, 'POST', '/v1/config/import', { document, dry_run: dryRun }, 300_000);
      if (reply.status === 200) return report(reply.body as unknown as Parameters<typeof report>[0]);
      process.stderr.write('import: the document was refused:\n');
      if (Array.isArray(reply.body.detail)) printIssues(reply.body.detail as { loc: (string | number)[]; msg: string }[]);
      else process.stderr.write(`  ${String(reply.body.detail ?? `the server answered ${reply.status}`)}\n`);
      return 1;
    },
  );
}

/** Administrative commands run against the configured database (same env vars as the server). */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'rotate-master-key') return rotateMasterKeyCommand(rest);
  if (command === 'bootstrap') return bootstrapCommand(rest);
  if (command === 'export') return exportCommand(rest);
  if (command === 'import') return importCommand(rest);
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
