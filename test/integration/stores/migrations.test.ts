import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../../src/logger.js';
import { migrateToLatest, openDatabase, type Database } from '../../../src/stores/database.js';
import { dropSchema, TEST_DATABASE_URL } from '../../helpers/test-server.js';

const logger = createLogger({ logLevel: 'silent' });

function open(schema: string, dataDir: string): Database {
  return openDatabase({ databaseUrl: TEST_DATABASE_URL, databaseSchema: TEST_DATABASE_URL ? schema : undefined, dataDir });
}

describe('db/migrations', function () {
  this.timeout(60000);
  const schema = `tg_mig_${process.pid}`;
  let dataDir: string;

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mig-'));
  });
  after(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (TEST_DATABASE_URL) await dropSchema(TEST_DATABASE_URL, schema);
  });

  it('migrates up, all the way down, and up again', async () => {
    const db = open(schema, dataDir);
    try {
      await migrateToLatest(db, logger, { schema: TEST_DATABASE_URL ? schema : undefined });
      expect(await db.knex.schema.hasTable('users')).to.equal(true);
      await db.knex.migrate.rollback(undefined, true);
      expect(await db.knex.schema.hasTable('users')).to.equal(false);
      expect(await db.knex.schema.hasTable('api_keys')).to.equal(false);
      await migrateToLatest(db, logger);
      expect(await db.knex.schema.hasTable('api_keys')).to.equal(true);
      const [, pending] = (await db.knex.migrate.list()) as [unknown[], unknown[]];
      expect(pending).to.have.length(0);
    } finally {
      await db.close();
    }
  });

  it('is safe when two instances migrate at once', async function () {
    const concurrentSchema = `${schema}_c`;
    // PGlite is one process's database: two "instances" share one handle there; PostgreSQL gets two pools.
    const a = open(concurrentSchema, fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mig-')));
    const b = TEST_DATABASE_URL ? open(concurrentSchema, dataDir) : a;
    try {
      const s = TEST_DATABASE_URL ? concurrentSchema : undefined;
      await Promise.all([migrateToLatest(a, logger, { schema: s }), migrateToLatest(b, logger, { schema: s })]);
      const [done, pending] = (await a.knex.migrate.list()) as [unknown[], unknown[]];
      expect(pending).to.have.length(0);
      expect(done.length).to.be.greaterThan(0);
      const rows = await a.knex('knex_migrations').count<{ count: string }[]>({ count: '*' });
      expect(Number(rows[0]?.count)).to.equal(done.length);
    } finally {
      await a.close();
      if (b !== a) await b.close();
      if (TEST_DATABASE_URL) await dropSchema(TEST_DATABASE_URL, concurrentSchema);
    }
  });
});
