import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import knexFactory from 'knex';
import { loadConfig, type Config } from '../../src/config.js';
import type { Clock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/logger.js';
import { migrateToLatest, openDatabase } from '../../src/stores/database.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';
import { bootstrapOwner } from '../../src/services/identity/bootstrap-service.js';
import { ApiClient } from './api-client.js';

/** Every log line written by every server the tests started (scanned for secrets). */
export const capturedLogs: string[] = [];

let counter = 0;

/**
 * Environment that lets a test server reach upstream fixtures on loopback: upstream server URLs pass
 * the outbound-address policy, which refuses loopback unless allow-listed (as in production).
 */
export const LOOPBACK_UPSTREAMS = { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*,localhost:*,[::1]:*' } as const;

/** PostgreSQL URL of the run, when the suite runs against PostgreSQL (`TEST_DATABASE_URL`). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export interface TestServer {
  readonly url: string;
  readonly server: RunningServer;
  readonly config: Config;
  /** A client with no credential. */
  readonly anon: ApiClient;
  /** Client authenticated as the first owner (created on start). */
  readonly owner: ApiClient;
  readonly ownerKey: string;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Keep the data directory (or schema) after stop, for restart tests. */
  keepData?: boolean;
  /** Reuse this data directory (PGlite) or schema (PostgreSQL). */
  reuse?: { dataDir: string; schema?: string | undefined };
  /** Skip creating the first owner. */
  noBootstrap?: boolean;
  /** Extra start options (injected upstream caller, MCP tunables). */
  start?: Omit<StartOptions, 'logger' | 'clock'>;
}

/**
 * Starts a real Toolgate server on a random loopback port, isolated from every other: its own
 * PGlite data directory, or its own schema when the suite runs on PostgreSQL. `stop()` removes it.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  counter += 1;
  const dataDir = options.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-'));
  const schema = options.reuse?.schema ?? (TEST_DATABASE_URL ? `tg_test_${process.pid}_${counter}_${Date.now() % 100000}` : undefined);
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_LOG_LEVEL: 'info',
    TOOLGATE_SHUTDOWN_TIMEOUT_MS: '2000',
    ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
    ...(schema ? { TOOLGATE_DB_SCHEMA: schema } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  if (!config.databaseUrl && !options.reuse) fs.cpSync(await pgliteTemplate(), path.join(dataDir, 'pglite'), { recursive: true });
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      capturedLogs.push(chunk.toString('utf8'));
      cb();
    },
  });
  const logger = createLogger(config, sink);
  const server = await startServer(config, { ...options.start, logger, ...(options.clock ? { clock: options.clock } : {}) });
  let ownerKey = '';
  if (!options.noBootstrap && !options.reuse) {
    const s = server.services;
    ({ key: ownerKey } = await bootstrapOwner(s, { email: 'owner@example.com', name: 'Owner' }));
  }
  return {
    url: server.url,
    server,
    config,
    anon: new ApiClient(server.url),
    owner: new ApiClient(server.url, ownerKey),
    ownerKey,
    async stop() {
      await server.stop();
      if (options.keepData) return;
      if (config.databaseUrl && schema) await dropSchema(config.databaseUrl, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let template: Promise<string> | undefined;

/**
 * A migrated, empty embedded database, made once per test process and copied into each test
 * server's data directory: PGlite's initdb takes seconds, a copy of its files milliseconds. The
 * server then opens it as any existing database (and finds no migration pending). The first start
 * of a fresh directory is tested through `npm start` (first-run.test.ts, process.test.ts).
 */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-template-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const config = loadConfig({ TOOLGATE_DATA_DIR: dir });
    const db = openDatabase(config);
    try {
      await migrateToLatest(db, createLogger({ logLevel: 'error' }, new Writable({ write: (_c, _e, cb) => cb() })));
    } finally {
      await db.close();
    }
    return path.join(dir, 'pglite');
  })();
  return template;
}

/** Drops a test schema on PostgreSQL. */
export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  try {
    await knex.raw('drop schema if exists ?? cascade', [schema]);
  } finally {
    await knex.destroy();
  }
}

let shared: Promise<TestServer> | undefined;

/** One server shared by the test files that need no special configuration. Stopped after the run. */
export function sharedServer(): Promise<TestServer> {
  shared ??= startTestServer();
  return shared;
}

/** Stops the shared server, if started (mocha root hook). */
export async function stopSharedServer(): Promise<void> {
  if (shared) await (await shared).stop();
  shared = undefined;
}
