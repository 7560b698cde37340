import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT } from '../helpers/contract.js';
import { run } from '../helpers/processes.js';
import { seedSecret } from '../helpers/secrets.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { fixtureStdio, register } from '../helpers/upstreams.js';

const SECRET = 'cli-config-secret-5d1e0b';

/** `npm run toolgate -- <args>` against a test server's installation, with extra environment. */
function cli(t: TestServer, args: string[], extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    TOOLGATE_DATA_DIR: t.config.dataDir,
    TOOLGATE_LOG_LEVEL: 'warn',
    ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}),
    ...(t.config.databaseSchema ? { TOOLGATE_DB_SCHEMA: t.config.databaseSchema } : {}),
    ...extra,
  };
  return run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args], env);
}

describe('npm run toolgate -- export / import', () => {
  let tmp: string;
  before(() => {
    seedSecret(SECRET);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-cli-config-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('exports through the running server and re-imports its document with no change; ${env:…} comes from the CLI environment', async function () {
    this.timeout(180_000);
    const t = await startTestServer();
    try {
      await register(t.owner, { name: 'fixture', transport: 'stdio', ...fixtureStdio(), secret_env: { TOKEN: SECRET }, enabled: false });
      expect((await t.owner.post('/api/v1/bundles', { name: 'Empty bundle' })).status).to.equal(201);
      const file = path.join(tmp, 'config.yaml');
      const exported = await cli(t, ['export', '--secrets', 'env', '--out', file]);
      expect(exported.code, exported.stderr).to.equal(0);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).to.not.include(SECRET);
      const doc = parse(text);
      expect(doc.servers[0].secret_env).to.deep.equal({ TOKEN: '${env:TOOLGATE_SECRET_FIXTURE_TOKEN}' });
      expect(doc.bundles.map((b: any) => b.name)).to.deep.equal(['Empty bundle']);

      const missing = await cli(t, ['import', file]);
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.include('TOOLGATE_SECRET_FIXTURE_TOKEN (servers.0.secret_env.TOKEN)');

      const same = await cli(t, ['import', file], { TOOLGATE_SECRET_FIXTURE_TOKEN: SECRET });
      expect(same.code, same.stderr).to.equal(0);
      expect(same.stdout).to.equal('No changes.\n');

      const rotated = await cli(t, ['import', file, '--dry-run'], { TOOLGATE_SECRET_FIXTURE_TOKEN: 'a-new-token-value' });
      expect(rotated.code, rotated.stderr).to.equal(0);
      expect(rotated.stdout).to.equal('~ server fixture (secret_env)\n1 change(s) would be made (dry run).\n');
      expect(rotated.stdout + rotated.stderr).to.not.include('a-new-token-value');
    } finally {
      await t.stop();
    }
  });

  it('imports into a stopped installation, which serves the result when it starts', async function () {
    this.timeout(180_000);
    const t = await startTestServer({ keepData: true });
    const file = path.join(tmp, 'new.yaml');
    fs.writeFileSync(
      file,
      [
        'toolgate_config: 1',
        'servers:',
        '  - name: offline',
        '    transport: stdio',
        '    command: /bin/true',
        '    enabled: false',
        '    secret_env: { KEY: "${env:OFFLINE_KEY}" }',
        'bundles:',
        '  - name: From Git',
        '    description: Applied by the CLI',
        '    tools: [{ server: offline, tool: lookup, override: { name: find } }]',
        '',
      ].join('\n'),
    );
    await t.stop();
    let restarted: TestServer | undefined;
    try {
      // An empty document (stdin closed) is refused, with the place of the problem.
      const bad = await cli(t, ['import', '-'], {});
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.include('the document was refused');
      const applied = await cli(t, ['import', file], { OFFLINE_KEY: SECRET });
      expect(applied.code, applied.stderr).to.equal(0);
      expect(applied.stdout).to.equal('+ server offline\n+ tool offline/lookup\n+ bundle From Git\n3 change(s) applied.\n');
      restarted = await startTestServer({
        reuse: { dataDir: t.config.dataDir, schema: t.config.databaseSchema },
        noBootstrap: true,
      });
      const row = await restarted.server.services.stores.servers.findByName('offline');
      expect(restarted.server.services.servers.open(row!.secret_env_sealed)).to.deep.equal({ KEY: SECRET });
      const bundle = (await restarted.server.services.stores.bundles.listAll()).find((b) => b.name === 'From Git')!;
      const detail = await restarted.server.services.bundles.get(bundle.id, { userId: 'cli-test', role: 'owner' } as never);
      expect(detail.description).to.equal('Applied by the CLI');
      expect(detail.tools.map((x) => [x.name, x.effective.name, x.available])).to.deep.equal([['lookup', 'find', false]]);
    } finally {
      await restarted?.stop();
      fs.rmSync(t.config.dataDir, { recursive: true, force: true });
    }
  });
});
