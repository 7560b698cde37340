import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { ConflictError } from './errors.js';
import { createLogger } from './logger.js';
import { openServices } from './server.js';
import { bootstrapOwner } from './services/bootstrap-service.js';

const USAGE = `Usage: npm run toolgate -- <command> [options]

Commands:
  bootstrap --email <email> [--name <name>]
      Creates the first owner of a fresh installation and prints their first API key once.
      Refuses when the installation already has users.
`;

/** Administrative commands run against the configured database (same env vars as the server). */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
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
    const { userId, key } = await bootstrapOwner(
      { knex: services.db.knex, users: services.users, apiKeys: services.apiKeysStore, apiKeysService: services.apiKeys },
      { email: values.email, ...(values.name ? { name: values.name } : {}) },
    );
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
    await services.identity.close();
    await services.db.close();
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
