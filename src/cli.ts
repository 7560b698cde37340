import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { ConflictError } from './errors.js';
import { createLogger } from './logger.js';
import { openServices } from './compose.js';
import { bootstrapOwner } from './services/bootstrap-service.js';
import { decodeKey, keyId, loadMasterKey } from './lib/secret-box.js';
import { rotateMasterKey } from './services/master-key-rotation.js';

const USAGE = `Usage: npm run toolgate -- <command> [options]

Commands:
  bootstrap --email <email> [--name <name>]
      Creates the first owner of a fresh installation and prints their first API key once.
      Refuses when the installation already has users.

  rotate-master-key [--new-key-file <path>]
      Re-encrypts every stored secret under a new master key, in one transaction. The new key
      (32 bytes, base64 or hex) is read from the file; without --new-key-file a key is generated
      (only when the key lives in the data directory). With the key file in the data directory the
      file is replaced (the old key is kept as master.key.previous-<id>, mode 0600); with
      TOOLGATE_SECRET_KEY, set it to the new key afterwards. Restart every instance afterwards;
      browser sessions end (their signing key derives from the master key). Safe to re-run.
`;

/** Re-encrypts every sealed column under a new master key (see USAGE). */
async function rotateMasterKeyCommand(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { 'new-key-file': { type: 'string' } } });
  const config = loadConfig();
  const current = loadMasterKey(config.secretKey, config.dataDir);
  const keyFile = path.join(config.dataDir, 'master.key');
  const pendingFile = path.join(config.dataDir, 'master.key.next');
  let next: Buffer;
  if (values['new-key-file']) next = decodeKey(fs.readFileSync(values['new-key-file'], 'utf8'));
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
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, process.stderr);
  const services = await openServices(config, logger);
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
    await services.close();
  }
}

/** Administrative commands run against the configured database (same env vars as the server). */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'rotate-master-key') return rotateMasterKeyCommand(rest);
  if (command !== 'bootstrap') {
    process.stderr.write(USAGE);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
  const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)) {
    process.stderr.write('bootstrap needs --email with a valid email address\n');
    return 2;
  }
  const config = loadConfig();
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, process.stderr);
  const services = await openServices(config, logger);
  try {
    const { userId, key } = await bootstrapOwner(services, { email: values.email, ...(values.name ? { name: values.name } : {}) });
    process.stdout.write(
      `Created owner ${values.email} (${userId}).\nTheir API key, shown only this once:\n\n  ${key}\n\nUse it as: Authorization: Bearer <key>\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ConflictError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await services.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      err instanceof ConfigError ? `${err.message}\n` : `toolgate: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  },
);
