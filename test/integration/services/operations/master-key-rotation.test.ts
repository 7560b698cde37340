import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { keyId, loadMasterKey, SecretBox } from '../../../../src/lib/secret-box.js';
import { rotateMasterKey } from '../../../../src/services/operations/master-key-rotation.js';
import { SEALED_COLUMNS } from '../../../../src/stores/sealed-columns.js';
import { ROOT } from '../../../helpers/contract.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

const run = promisify(execFile);

async function addProvider(t: TestServer, type: string, secret: string): Promise<void> {
  const res = await t.owner.post('/api/v1/settings/auth/providers', {
    provider_type: type,
    display_name: type,
    client_id: `${type}-id`,
    client_secret: secret,
  });
  expect(res.status).to.equal(201);
}

async function sealedValues(t: TestServer): Promise<Map<string, string>> {
  const rows = await t.server.services.db.knex('oauth_providers').select('provider_type', 'client_secret_sealed');
  return new Map(rows.map((r: { provider_type: string; client_secret_sealed: string }) => [r.provider_type, r.client_secret_sealed]));
}

describe('master-key rotation', function () {
  this.timeout(90000);

  it('registers the OAuth client secret and AI provider key columns as sealed', () => {
    expect(SEALED_COLUMNS).to.deep.include({ table: 'oauth_providers', id: 'id', column: 'client_secret_sealed' });
    expect(SEALED_COLUMNS).to.deep.include({ table: 'ai_providers', id: 'id', column: 'api_key_sealed' });
  });

  it('registers every *_sealed column of the schema, so a rotation leaves no secret on the old key', async () => {
    const t = await startTestServer({ noBootstrap: true });
    try {
      const rows = await t.server.services.db.knex
        .select('table_name', 'column_name')
        .from('information_schema.columns')
        .where('column_name', 'like', '%\\_sealed')
        .andWhereRaw('table_schema = current_schema()');
      const inSchema = rows.map((r: { table_name: string; column_name: string }) => `${r.table_name}.${r.column_name}`).sort();
      expect(inSchema.length).to.be.greaterThan(3);
      expect(SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort()).to.deep.equal(inSchema);
    } finally {
      await t.stop();
    }
  });

  describe('rotateMasterKey', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer();
      await addProvider(t, 'github', 'secret-one');
      await addProvider(t, 'google', 'secret-two');
      const ai = await t.owner.post('/api/v1/settings/providers', {
        provider_type: 'llm',
        provider: 'openai',
        model: 'gpt-test',
        api_key: 'sk-ai-provider-key-0123456789',
      });
      expect(ai.status).to.equal(201);
    });
    after(async () => {
      await t?.stop();
    });

    it('re-encrypts every sealed value under the new key in one transaction; plaintexts unchanged; re-runnable', async () => {
      const current = loadMasterKey(undefined, t.config.dataDir);
      const next = randomBytes(32);
      const report = await rotateMasterKey(t.server.services.tx, { current, next });
      expect(report.newKeyId).to.equal(keyId(next));
      expect(report.columns).to.deep.include({ table: 'oauth_providers', column: 'client_secret_sealed', rewritten: 2, alreadyCurrent: 0 });
      const box = new SecretBox(next);
      const values = await sealedValues(t);
      for (const v of values.values()) expect(SecretBox.keyIdOf(v)).to.equal(keyId(next));
      expect(box.open(values.get('github')!)).to.equal('secret-one');
      expect(box.open(values.get('google')!)).to.equal('secret-two');
      expect(report.columns).to.deep.include({ table: 'ai_providers', column: 'api_key_sealed', rewritten: 1, alreadyCurrent: 0 });
      const aiRow = await t.server.services.db.knex('ai_providers').first('api_key_sealed');
      expect(SecretBox.keyIdOf(aiRow.api_key_sealed)).to.equal(keyId(next));
      expect(box.open(aiRow.api_key_sealed)).to.equal('sk-ai-provider-key-0123456789');
      const again = await rotateMasterKey(t.server.services.tx, { current, next });
      expect(again.columns[0]).to.include({ rewritten: 0, alreadyCurrent: 2 });
      // Back to the server's key, so the rest of the server keeps working.
      await rotateMasterKey(t.server.services.tx, { current: next, next: current });
    });

    it('changes nothing when one value cannot be opened (all or nothing)', async () => {
      const knex = t.server.services.db.knex;
      const before = await sealedValues(t);
      await knex('oauth_providers').insert({
        id: randomUUID(),
        provider_type: 'broken',
        display_name: 'Broken',
        client_id: 'x',
        client_secret_sealed: new SecretBox(randomBytes(32)).seal('sealed with a lost key'),
        config: '{}',
      });
      const current = loadMasterKey(undefined, t.config.dataDir);
      let failed = false;
      try {
        await rotateMasterKey(t.server.services.tx, { current, next: randomBytes(32) });
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
      const after = await sealedValues(t);
      for (const [type, value] of before) expect(after.get(type)).to.equal(value);
      await knex('oauth_providers').where({ provider_type: 'broken' }).delete();
    });
  });

  describe('npm run toolgate -- rotate-master-key', () => {
    it('rotates the data directory key file: secrets readable with the new key after a restart, old key kept 0600', async () => {
      const first = await startTestServer({ keepData: true });
      await addProvider(first, 'github', 'cli-secret');
      const dataDir = first.config.dataDir;
      const schema = first.config.databaseSchema;
      const oldKey = loadMasterKey(undefined, dataDir);
      await first.stop();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        TOOLGATE_DATA_DIR: dataDir,
        TOOLGATE_LOG_LEVEL: 'warn',
        ...(first.config.databaseUrl ? { DATABASE_URL: first.config.databaseUrl } : {}),
        ...(schema ? { TOOLGATE_DB_SCHEMA: schema } : {}),
      };
      delete env.TOOLGATE_SECRET_KEY;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'rotate-master-key'], {
        env,
        cwd: ROOT,
      });
      expect(stdout).to.match(/oauth_providers\.client_secret_sealed: 1 re-encrypted/);
      expect(stdout).to.not.include('cli-secret');
      const newKey = loadMasterKey(undefined, dataDir);
      expect(newKey.equals(oldKey)).to.equal(false);
      expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).to.equal(0o600);
      const backup = path.join(dataDir, `master.key.previous-${keyId(oldKey)}`);
      expect(fs.statSync(backup).mode & 0o777).to.equal(0o600);
      expect(fs.existsSync(path.join(dataDir, 'master.key.next'))).to.equal(false);

      const second = await startTestServer({ reuse: { dataDir, schema } });
      try {
        const row = await second.server.services.db.knex('oauth_providers').where({ provider_type: 'github' }).first();
        expect(SecretBox.keyIdOf(row.client_secret_sealed)).to.equal(keyId(newKey));
        expect(second.server.services.secrets.open(row.client_secret_sealed)).to.equal('cli-secret');
      } finally {
        await second.stop();
      }
    });
  });
});
