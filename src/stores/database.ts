import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import type { Config } from '../config.js';
import { isConnectionError } from '../lib/database-errors.js';
import type { Logger } from '../logger.js';
import { PGliteThread } from './pglite-thread.js';

/** The application's database handle: Knex plus what the rest of the app needs to know of it. */
export interface Database {
  readonly knex: Knex;
  /** `pglite` for the embedded default, `postgres` for a server reached through `pg`. */
  readonly kind: 'pglite' | 'postgres';
  /** Answers when the database takes a trivial query within `timeoutMs`; throws otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  /** Outcome of the most recent `ping` (true before the first one). */
  readonly lastPingOk: boolean;
  /**
   * Settles once the database can take a connection at all: the embedded database has opened (on a
   * first start, created) its files; a server database at once. No timeout: creating the embedded
   * database's files takes what it takes, and is not an outage.
   */
  opened(): Promise<void>;
  /** Closes every connection (and the embedded database, flushing it to disk). */
  close(): Promise<void>;
  /**
   * A handle on the same database without the statement limit, for long statements (migrations),
   * and how to let it go. The embedded database has no limit: it is this handle, and letting go is a no-op.
   */
  unbounded(): { knex: Knex; release(): Promise<void> };
  /** The connection pool's figures now (the metrics' gauge); undefined when the driver keeps no pool. */
  poolStats(): { used: number; free: number; pendingAcquires: number; pendingCreates: number } | undefined;
}

/** The tarn pool Knex keeps its connections in (not part of Knex's public types). */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The migrations as written: their file names (`<timestamp>_<what>.ts`) are what `knex_migrations` records. */
const MIGRATIONS_DIR = path.resolve(HERE, '../../db/migrations');
/**
 * Where this module finds them as JavaScript when it runs compiled (dist/stores/database.js, built
 * by scripts/build-server.mjs into dist/db/migrations/<name>.js); null when it runs from its .ts
 * source through tsx (tests, tools), which loads the .ts files themselves.
 */
const COMPILED_MIGRATIONS_DIR = import.meta.url.endsWith('.ts') ? null : path.resolve(HERE, '../db/migrations');

/**
 * The migrations of db/migrations, named by their `.ts` file names either way (a database migrated
 * by one build is up to date for the other), loaded from the compiled build when this module is
 * compiled. The names are listed from the sources, so a compiled build that lacks a migration fails
 * loudly instead of skipping it.
 */
const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return (await fs.promises.readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
  },
  getMigrationName: (name) => name,
  async getMigration(name) {
    if (!COMPILED_MIGRATIONS_DIR) return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, name)).href)) as Knex.Migration;
    const file = path.join(COMPILED_MIGRATIONS_DIR, name.replace(/\.ts$/, '.js'));
    if (!fs.existsSync(file)) throw new Error(`migration ${name} is not compiled (${file} is missing): run \`npm run build:server\``);
    return (await import(pathToFileURL(file).href)) as Knex.Migration;
  },
};

/** A statement that got no answer within the configured time: the connection it ran on is dropped. */
export class DatabaseTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}

/** The parts of a `pg` client connection the deadline touches. */
interface PgConnection {
  __knex__disposed?: unknown;
  connection?: { stream?: { destroy(): void } };
}
type KnexPgClient = new (config: Knex.Config) => { _query(connection: PgConnection, obj: unknown): Promise<unknown> };
const requireCjs = createRequire(import.meta.url);

/**
 * Knex's PostgreSQL client with a client-side deadline on every statement. A server that is
 * slow cancels the statement itself (`statement_timeout`, set a little lower); a server that is
 * unreachable (a network blackhole) never answers, so past the deadline the statement fails with
 * DatabaseTimeoutError and its connection is destroyed: the pool opens a fresh one next time
 * instead of queueing behind an answer that will not come.
 */
function pgClientWithDeadline(deadlineMs: number): KnexPgClient {
  const ClientPG = requireCjs('knex/lib/dialects/postgres/index.js') as KnexPgClient;
  return class ClientPGWithDeadline extends ClientPG {
    override _query(connection: PgConnection, obj: unknown): Promise<unknown> {
      const running = super._query(connection, obj);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const err = new DatabaseTimeoutError(deadlineMs);
          connection.__knex__disposed = err;
          connection.connection?.stream?.destroy();
          reject(err);
        }, deadlineMs);
        running.then(
          (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err);
          },
        );
      });
    }
  };
}

/** Time limits of database access (PostgreSQL); 0 = no statement limit (migrations, admin commands). */
export interface DatabaseTimeouts {
  /** Longest wait for a pooled connection (and for a new connection to open). */
  acquireTimeoutMs: number;
  /** Longest a statement may run before it fails (server-side cancel at 90 %, client-side deadline at 100 %). */
  statementTimeoutMs: number;
}

const DEFAULT_TIMEOUTS: DatabaseTimeouts = { acquireTimeoutMs: 5000, statementTimeoutMs: 5000 };

/** `host:port/database` of a PostgreSQL URL: safe to log (no user, no password). */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** Opens the database the configuration names, without touching its schema. */
export function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>,
  logger?: Logger,
  timeouts: DatabaseTimeouts = DEFAULT_TIMEOUTS,
): Database {
  // Knex and pg report connection trouble through this; without it they write to the console.
  const log: Knex.Logger = {
    // The first line only: Knex passes errors with their stack, which a log reader has no use for.
    warn: (message: unknown) => logger?.warn({ source: 'knex', detail: firstLine(message) }, 'database warning'),
    error: (message: unknown) => logger?.error({ source: 'knex', detail: firstLine(message) }, 'database error'),
    deprecate: (method: string, alternative: string) => logger?.debug({ source: 'knex', method, alternative }, 'knex deprecation'),
    debug: () => undefined,
  };
  const migrations: Knex.MigratorConfig = {
    migrationSource,
    tableName: 'knex_migrations',
    schemaName: config.databaseSchema,
  };
  let knex: Knex;
  let kind: Database['kind'];
  let embedded: PGliteThread | undefined;
  if (config.databaseUrl) {
    kind = 'postgres';
    logger?.info({ database: describePostgresUrl(config.databaseUrl), schema: config.databaseSchema }, 'using PostgreSQL');
    const statementMs = timeouts.statementTimeoutMs;
    knex = knexFactory({
      client: statementMs > 0 ? (pgClientWithDeadline(statementMs) as unknown as Knex.Config['client']) : 'pg',
      connection: {
        connectionString: config.databaseUrl,
        connectionTimeoutMillis: timeouts.acquireTimeoutMs,
        application_name: 'toolgate',
        keepAlive: true,
        ...(statementMs > 0 ? { statement_timeout: Math.max(1, Math.floor(statementMs * 0.9)) } : {}),
      } as Knex.PgConnectionConfig,
      searchPath: config.databaseSchema ? [config.databaseSchema] : undefined,
      pool: { min: 0, max: 10, idleTimeoutMillis: 30000 },
      acquireConnectionTimeout: timeouts.acquireTimeoutMs,
      migrations,
      log,
    });
  } else {
    kind = 'pglite';
    const dir = path.join(config.dataDir, 'pglite');
    const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    logger?.info({ path: dir }, fresh ? 'creating the embedded database (first start)' : 'opening the embedded database');
    // Loaded only here: PGlite's module costs about 95 MiB of RSS, which a PostgreSQL deployment
    // should not carry (BENCHMARKS.md, "Memory"). PGlite itself runs in a thread of its own.
    const ClientPgLite = requireCjs('knex-pglite') as Knex.Config['client'];
    embedded = new PGliteThread(dir);
    knex = knexFactory({
      client: ClientPgLite,
      dialect: 'postgres',
      connection: { pglite: embedded } as Knex.StaticConnectionConfig,
      // One connection, and start-up opens the files (or, the first time, creates them in a process
      // of its own, which takes seconds more on a busy machine): room beyond the pool setting.
      acquireConnectionTimeout: Math.max(fresh ? 60_000 : 10_000, timeouts.acquireTimeoutMs),
      migrations,
      log,
    });
  }
  let lastPingOk = true;
  const openStarted = Date.now();
  const opened =
    embedded?.waitReady.then(() =>
      logger?.info({ ms: Date.now() - openStarted }, kind === 'pglite' ? 'embedded database ready' : 'database ready'),
    ) ?? Promise.resolve();
  opened.catch(() => undefined);
  return {
    knex,
    kind,
    opened: () => opened,
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
    async close() {
      await knex.destroy();
      // Knex closes its connection only if it ever opened it; the thread holds the files either way.
      await embedded?.close();
    },
    poolStats() {
      const pool = (knex.client as { pool?: TarnPool }).pool;
      if (!pool || typeof pool.numUsed !== 'function') return undefined;
      return {
        used: pool.numUsed(),
        free: pool.numFree(),
        pendingAcquires: pool.numPendingAcquires(),
        pendingCreates: pool.numPendingCreates(),
      };
    },
    unbounded() {
      if (kind === 'pglite' || timeouts.statementTimeoutMs === 0) return { knex, release: async () => undefined };
      const other = openDatabase(config, undefined, { ...timeouts, statementTimeoutMs: 0 });
      return { knex: other.knex, release: () => other.close() };
    },
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
  // The embedded database's files first: the connect deadline is for a server that is not up yet,
  // not for creating files on a slow disk (a first start on a busy machine).
  await db.opened();
  const deadline = Date.now() + connectTimeoutMs;
  const { knex, release } = db.unbounded();
  try {
    await migrateWithRetries(knex, logger, schema, deadline);
  } finally {
    await release();
  }
}

async function migrateWithRetries(knex: Knex, logger: Logger, schema: string | undefined, deadline: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (schema) await knex.raw('create schema if not exists ??', [schema]);
      const [, pending] = (await knex.migrate.list()) as [unknown[], unknown[]];
      if (pending.length > 0) logger.info({ pending: pending.length }, 'migrating the database');
      const [, applied] = (await knex.migrate.latest()) as [number, string[]];
      if (applied.length > 0) logger.info({ migrations: applied.length }, 'database migrated');
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

/** The first line of a message (an Error's message, not its stack), at most 300 characters. */
function firstLine(message: unknown): string {
  const text = message instanceof Error ? message.message : String(message);
  return text.split('\n', 1)[0]!.slice(0, 300);
}
