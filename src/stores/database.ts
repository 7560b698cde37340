import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import type { Config } from '../config.js';
import { isConnectionError } from '../lib/database-errors.js';
import type { Logger } from '../logger.js';

/** The application's database handle: Knex plus what the rest of the app needs to know of it. */
export interface Database {
  readonly knex: Knex;
  /** `pglite` for the embedded default, `postgres` for a server reached through `pg`. */
  readonly kind: 'pglite' | 'postgres';
  /** Answers when the database takes a trivial query within `timeoutMs`; throws otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  /** Outcome of the most recent `ping` (true before the first one). */
  readonly lastPingOk: boolean;
  /** Closes every connection (and the embedded database, flushing it to disk). */
  close(): Promise<void>;
}

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../db/migrations');

/** Opens the database the configuration names, without touching its schema. */
export function openDatabase(config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>, logger?: Logger): Database {
  // Knex and pg report connection trouble through this; without it they write to the console.
  const log: Knex.Logger = {
    warn: (message: unknown) => logger?.warn({ source: 'knex', detail: String(message) }, 'database warning'),
    error: (message: unknown) => logger?.error({ source: 'knex', detail: String(message) }, 'database error'),
    deprecate: (method: string, alternative: string) => logger?.debug({ source: 'knex', method, alternative }, 'knex deprecation'),
    debug: () => undefined,
  };
  const migrations: Knex.MigratorConfig = {
    directory: MIGRATIONS_DIR,
    loadExtensions: ['.ts'],
    tableName: 'knex_migrations',
    schemaName: config.databaseSchema,
  };
  let knex: Knex;
  let kind: Database['kind'];
  if (config.databaseUrl) {
    kind = 'postgres';
    knex = knexFactory({
      client: 'pg',
      connection: {
        connectionString: config.databaseUrl,
        connectionTimeoutMillis: 5000,
        application_name: 'toolgate',
      },
      searchPath: config.databaseSchema ? [config.databaseSchema] : undefined,
      pool: { min: 0, max: 10, idleTimeoutMillis: 30000 },
      acquireConnectionTimeout: 5000,
      migrations,
      log,
    });
  } else {
    kind = 'pglite';
    const dir = path.join(config.dataDir, 'pglite');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    knex = knexFactory({
      client: ClientPgLite,
      dialect: 'postgres',
      connection: { filename: dir } as Knex.StaticConnectionConfig,
      acquireConnectionTimeout: 10000,
      migrations,
      log,
    });
  }
  let lastPingOk = true;
  return {
    knex,
    kind,
    get lastPingOk() {
      return lastPingOk;
    },
    async ping(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([knex.raw('select 1'), timeout]);
        lastPingOk = true;
      } catch (err) {
        lastPingOk = false;
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => knex.destroy(),
  };
}

/** Errors a concurrent migrator causes; the loser waits and tries again. */
function isMigrationRace(err: unknown): boolean {
  const e = err as { name?: string; code?: string; message?: string };
  return (
    e.name === 'MigrationLocked' ||
    e.code === '42P07' || // duplicate_table: both created knex_migrations at once
    e.code === '23505' || // unique_violation: both inserted the lock row at once
    /already locked/i.test(e.message ?? '')
  );
}

/**
 * Brings the schema up to date. Safe when several instances start at once: Knex's lock table lets
 * one migrate while the others wait and retry; it also waits (up to `connectTimeoutMs`) for a
 * database that is not reachable yet.
 */
export async function migrateToLatest(
  db: Database,
  logger: Logger,
  { schema, connectTimeoutMs = 30000 }: { schema?: string | undefined; connectTimeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + connectTimeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (schema) await db.knex.raw('create schema if not exists ??', [schema]);
      const [, applied] = (await db.knex.migrate.latest()) as [number, string[]];
      if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
      return;
    } catch (err) {
      const race = isMigrationRace(err);
      const unreachable = !race && isConnectionError(err);
      if ((!race && !unreachable) || Date.now() > deadline) throw err;
      const delay = Math.min(2000, 100 * attempt) + Math.floor(Math.random() * 100);
      logger.warn({ attempt, reason: race ? 'migration in progress elsewhere' : 'database unreachable' }, 'waiting for the database');
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
