import { expect } from 'chai';
import { BadGatewayError } from '../../../../src/errors.js';
import { OutboundPolicy } from '../../../../src/lib/outbound-policy.js';
import { createLogger } from '../../../../src/logger.js';
import { registryGithubToken, SkillCatalogs } from '../../../../src/services/skills/skill-catalogs.js';
import { SecretBoxError } from '../../../../src/lib/secret-box.js';
import { FakeGithub, StaticServer } from '../../../helpers/fake-github.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { containsSecret, seedSecret } from '../../../helpers/secrets.js';
import { capturedLogs, startTestServer, type TestServer } from '../../../helpers/test-server.js';

const skillMd = (name: string, description: string, extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\nlicense: Apache-2.0\nmetadata:\n  author: acme\n  version: "2.1"\n  tags: [docs, pdf]\n${extra}---\n\n# ${name}\n\nInstructions.\n`;

const enc = (s: string) => encodeURIComponent(s);

describe('Skill catalogs', function () {
  this.timeout(60000);
  let github: FakeGithub;
  let index: StaticServer;
  let t: TestServer;
  let member: TestUser;

  before(async () => {
    github = await FakeGithub.start();
    github.repos.set('acme/skills', {
      files: {
        'README.md': '# Acme skills',
        'skills/pdf-report/SKILL.md': skillMd('pdf-report', 'Builds PDF reports from data'),
        'skills/pdf-report/scripts/report.py': 'print("report")\n',
        'skills/pdf-report/assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
        'skills/pdf-report/nested/SKILL.md': skillMd('nested-one', 'Part of pdf-report'),
        'skills/slides/SKILL.md': skillMd('slides', 'Makes slide decks'),
        'skills/broken/SKILL.md': 'no frontmatter here',
        'skills/huge/SKILL.md': skillMd('huge', 'Has a file too large to import'),
        'skills/huge/data.txt': 'x'.repeat(600 * 1024),
        'other/SKILL.md': skillMd('outside', 'Not under skills/'),
      },
    });
    index = await StaticServer.start();
    index.routes.set('/catalog/index.json', {
      body: JSON.stringify({
        skills: [
          {
            name: 'csv-tools',
            description: 'Cleans CSV files',
            path: 'csv-tools/',
            files: ['workflow.yaml', 'scripts/clean.js'],
            license: 'MIT',
            tags: ['csv'],
            author: 'idx',
          },
          { name: 'hello', description: 'Says hello', url: `${'INDEX'}/elsewhere/hello/` },
        ],
      }).replace('INDEX', ''),
    });
    index.routes.set('/catalog/csv-tools/SKILL.md', { body: skillMd('csv-tools', 'Cleans CSV files'), type: 'text/markdown' });
    index.routes.set('/catalog/csv-tools/workflow.yaml', {
      body: 'tools:\n  - name: clean_csv\n    description: Trims cells\n    language: javascript\n    entry: scripts/clean.js\n',
      type: 'text/yaml',
    });
    index.routes.set('/catalog/csv-tools/scripts/clean.js', { body: 'export function main(a) { return a; }', type: 'text/javascript' });
    index.routes.set('/big/index.json', { body: Buffer.alloc(2 * 1024 * 1024, 0x20) });
    index.routes.set('/bad/index.json', { body: JSON.stringify({ skills: [{ name: 'Bad Name', description: '' }] }) });
    index.routes.set('/redirect/index.json', { redirect: '/catalog/index.json' });
    index.routes.set('/escape/index.json', { redirect: 'https://10.255.255.1/index.json' });
    index.routes.set('/downgrade/index.json', { redirect: 'http://example.invalid/index.json' });
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*', TOOLGATE_SKILLS_GITHUB_API_URL: github.url } });
    member = await createUser(t, 'member');
  });
  after(async () => {
    await t?.stop();
    await github?.close();
    await index?.close();
  });

  describe('GET /api/v1/skills/catalog/{source} (GitHub)', () => {
    it('lists one skill per folder holding a SKILL.md, below the path, through the REST API', async () => {
      const res = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}`);
      expect(res.status).to.equal(200);
      expect(res.body.source).to.equal('acme/skills/skills');
      expect(res.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['huge', 'pdf-report', 'slides']);
      const pdf = res.body.items.find((s: { name: string }) => s.name === 'pdf-report');
      expect(pdf).to.deep.include({
        description: 'Builds PDF reports from data',
        source_url: 'https://github.com/acme/skills/tree/main/skills/pdf-report',
        author: 'acme',
        version: '2.1',
        license: 'Apache-2.0',
        tags: ['docs', 'pdf'],
      });
      expect(pdf.files).to.deep.equal(['SKILL.md', 'assets/logo.png', 'nested/SKILL.md', 'scripts/report.py']);
      expect(github.requests.every((r) => r.authorization === undefined)).to.equal(true);
    });

    it('filters by search and serves repeated listings from the cache', async () => {
      const before = github.count('/repos/acme/skills');
      const res = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}?search=SLIDE`);
      expect(res.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['slides']);
      expect(res.body.total).to.equal(1);
      expect(github.count('/repos/acme/skills')).to.equal(before);
    });

    it('answers 404 for a repository that does not exist, 400 for a source that is no catalog', async () => {
      const missing = await member.client.get(`/api/v1/skills/catalog/${enc('acme/nothing')}`);
      expect(missing.status).to.equal(404);
      const bad = await member.client.get(`/api/v1/skills/catalog/${enc('not a repo')}`);
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('invalid_catalog_source');
      const dots = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/../x')}`);
      expect(dots.status).to.equal(400);
    });

    it('answers 502 with the reason when GitHub rate-limits', async () => {
      github.rateLimited = true;
      try {
        const res = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/other')}`);
        expect(res.status).to.equal(502);
        expect(res.body.code).to.equal('bad_gateway');
        expect(res.body.detail).to.match(/rate limit/);
      } finally {
        github.rateLimited = false;
      }
    });
  });

  describe('GitHub token from the general settings (registry_token)', () => {
    const settings = (body: Record<string, unknown>) => t.owner.put('/api/v1/settings/general', body);
    const since = (n: number) => github.requests.slice(n);
    afterEach(async () => {
      github.requireToken = undefined;
      await settings({ registry_token: null, registry_url: null });
    });

    it('sends no Authorization header while no registry token is configured', async () => {
      const start = github.requests.length;
      const res = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}`);
      expect(res.status).to.equal(200);
      await settings({ log_retention_days: 31 }); // any settings change empties the listing cache
      const again = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}`);
      expect(again.status).to.equal(200);
      expect(since(start).length).to.be.greaterThan(0);
      expect(since(start).every((r) => r.authorization === undefined)).to.equal(true);
    });

    it('sends the sealed registry token as a Bearer token on every GitHub API call (listing and import)', async () => {
      const token = seedSecret(`ghp_regTOKEN${Date.now()}canary`);
      expect((await settings({ registry_token: token })).status).to.equal(200);
      github.requireToken = token;
      const start = github.requests.length;
      const res = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}`);
      expect(res.status).to.equal(200);
      expect(res.body.total).to.equal(3);
      const imported = await t.owner.post('/api/v1/skills/import', { source: 'acme/skills/skills', name: 'slides' });
      expect(imported.status).to.equal(201);
      const calls = since(start);
      expect(calls.some((r) => r.path.includes('/git/blobs/'))).to.equal(true);
      expect(calls.every((r) => r.authorization === `Bearer ${token}`)).to.equal(true);
      for (const text of [res.text, imported.text, capturedLogs.join('')]) expect(containsSecret(text, token)).to.equal(false);
    });

    it('answers 502 without the token when GitHub rejects it', async () => {
      const token = seedSecret(`ghp_badTOKEN${Date.now()}canary`);
      await settings({ registry_token: token });
      github.requireToken = `${token}-other`;
      const res = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}`);
      expect(res.status).to.equal(502);
      expect(res.body.detail).to.match(/rejected the configured token \(401\)/);
      expect(containsSecret(res.text, token)).to.equal(false);
      expect(containsSecret(capturedLogs.join(''), token)).to.equal(false);
    });

    it('keeps a token meant for another registry (registry_url elsewhere) away from GitHub', async () => {
      const token = seedSecret(`other-registry-${Date.now()}-canary`);
      await settings({ registry_url: 'https://registry.example.com/v1', registry_token: token });
      const start = github.requests.length;
      const res = await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}`);
      expect(res.status).to.equal(200);
      expect(since(start).length).to.be.greaterThan(0);
      expect(since(start).every((r) => r.authorization === undefined)).to.equal(true);
      // The GitHub API named as the registry gets it.
      await settings({ registry_url: github.url });
      const start2 = github.requests.length;
      expect((await member.client.get(`/api/v1/skills/catalog/${enc('acme/skills/skills')}`)).status).to.equal(200);
      expect(since(start2).length).to.be.greaterThan(0);
      expect(since(start2).every((r) => r.authorization === `Bearer ${token}`)).to.equal(true);
    });
  });

  describe('GET /api/v1/skills/catalog/{source} (index URL)', () => {
    it('lists the skills of a CatalogIndex, resolving folders against the index URL', async () => {
      const res = await member.client.get(`/api/v1/skills/catalog/${enc(`${index.url}/catalog/index.json`)}`);
      expect(res.status).to.equal(200);
      expect(res.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['csv-tools', 'hello']);
      expect(res.body.items[0]).to.deep.include({
        source_url: `${index.url}/catalog/csv-tools/`,
        license: 'MIT',
        author: 'idx',
        files: ['SKILL.md', 'scripts/clean.js', 'workflow.yaml'],
      });
      expect(res.body.items[1].source_url).to.equal(`${index.url}/elsewhere/hello/`);
    });

    it('follows a redirect, checking the next hop', async () => {
      const res = await member.client.get(`/api/v1/skills/catalog/${enc(`${index.url}/redirect/index.json`)}`);
      expect(res.status).to.equal(200);
      expect(res.body.total).to.equal(2);
    });

    it('answers 502 when a redirect leads to an address the outbound policy refuses, or to plain http', async () => {
      const escape = await member.client.get(`/api/v1/skills/catalog/${enc(`${index.url}/escape/index.json`)}`);
      expect(escape.status).to.equal(502);
      expect(escape.body.detail).to.match(/outbound-address policy/);
      const downgrade = await member.client.get(`/api/v1/skills/catalog/${enc(`${index.url}/downgrade/index.json`)}`);
      expect(downgrade.status).to.equal(502);
      expect(downgrade.body.detail).to.match(/not https/);
    });

    it('answers 400 for a private address that is not allow-listed, and for plain http to a public host', async () => {
      const priv = await member.client.get(`/api/v1/skills/catalog/${enc('https://10.1.2.3/index.json')}`);
      expect(priv.status).to.equal(400);
      expect(priv.body.code).to.equal('outbound_refused');
      const http = await member.client.get(`/api/v1/skills/catalog/${enc('http://example.com/index.json')}`);
      expect(http.status).to.equal(400);
    });

    it('answers 502 for an index over 1 MiB and for one that is not a CatalogIndex', async () => {
      const big = await member.client.get(`/api/v1/skills/catalog/${enc(`${index.url}/big/index.json`)}`);
      expect(big.status).to.equal(502);
      expect(big.body.detail).to.match(/larger than 1048576 bytes/);
      const bad = await member.client.get(`/api/v1/skills/catalog/${enc(`${index.url}/bad/index.json`)}`);
      expect(bad.status).to.equal(502);
      expect(bad.body.detail).to.match(/not a valid CatalogIndex/);
    });
  });

  describe('POST /api/v1/skills/import', () => {
    it('imports a GitHub skill with its text files (binary files skipped), recording source and source_url', async () => {
      const res = await t.owner.post('/api/v1/skills/import', { source: 'acme/skills/skills', name: 'pdf-report' });
      expect(res.status).to.equal(201);
      expect(res.body).to.deep.include({
        name: 'pdf-report',
        description: 'Builds PDF reports from data',
        source: 'acme/skills/skills',
        source_url: 'https://github.com/acme/skills/tree/main/skills/pdf-report',
        version: '2.1',
        tags: ['docs', 'pdf'],
      });
      expect(res.body.frontmatter).to.deep.equal({
        license: 'Apache-2.0',
        metadata: { author: 'acme', version: '2.1', tags: ['docs', 'pdf'] },
      });
      expect(res.body.content).to.equal('\n# pdf-report\n\nInstructions.\n');
      expect(res.body.files.map((f: { path: string }) => f.path)).to.deep.equal(['nested/SKILL.md', 'scripts/report.py']);
    });

    it('imports an index skill with its workflow', async () => {
      const res = await t.owner.post('/api/v1/skills/import', { source: `${index.url}/catalog/index.json`, name: 'csv-tools' });
      expect(res.status).to.equal(201);
      expect(res.body.source_url).to.equal(`${index.url}/catalog/csv-tools/`);
      expect(res.body.workflow.tools[0].name).to.equal('clean_csv');
    });

    it('answers 404 for a name the catalog does not have, 409 for a second import, 413 for a file over 512 KiB', async () => {
      expect((await t.owner.post('/api/v1/skills/import', { source: 'acme/skills/skills', name: 'nope' })).status).to.equal(404);
      const again = await t.owner.post('/api/v1/skills/import', { source: 'acme/skills/skills', name: 'pdf-report' });
      expect(again.status).to.equal(409);
      const huge = await t.owner.post('/api/v1/skills/import', { source: 'acme/skills/skills', name: 'huge' });
      expect(huge.status).to.equal(413);
      expect(huge.body.code).to.equal('skill_too_large');
      expect(await t.server.services.db.knex('skills').where({ name: 'huge' }).first()).to.equal(undefined);
    });

    it('is refused to members', async () => {
      expect((await member.client.post('/api/v1/skills/import', { source: 'acme/skills', name: 'slides' })).status).to.equal(403);
    });
  });

  describe('SkillCatalogs (bounds, token, cache)', () => {
    const logger = createLogger({ logLevel: 'silent' });
    const policy = new OutboundPolicy(['127.0.0.1:*']);

    it('sends the token to the GitHub API only, and never puts it in an error', async () => {
      const token = seedSecret('ghp_canaryTOKEN0123456789abcdef');
      github.requireToken = token;
      try {
        const withToken = new SkillCatalogs({ policy, githubApiUrl: github.url, githubToken: () => token, logger });
        const listing = await withToken.list('acme/skills/skills');
        expect(listing.total).to.equal(3);
        expect(github.requests.at(-1)?.authorization).to.equal(`Bearer ${token}`);
        const wrong = new SkillCatalogs({ policy, githubApiUrl: github.url, githubToken: async () => `${token}x`, logger });
        const err = await wrong.list('acme/skills').catch((e: unknown) => e);
        expect(err).to.be.instanceOf(BadGatewayError);
        expect((err as Error).message).to.match(/401/);
        expect(containsSecret((err as Error).message, token)).to.equal(false);
        expect(containsSecret(capturedLogs.join(''), token)).to.equal(false);
      } finally {
        github.requireToken = undefined;
      }
    });

    it('takes the registry token for GitHub only when registry_url is unset or GitHub; an unreadable token is a 502', async () => {
      const api = 'https://api.github.com';
      const token = 'ghp_unit0123456789';
      expect(await registryGithubToken(async () => ({ url: null, token }), api)).to.equal(token);
      expect(await registryGithubToken(async () => ({ url: 'https://api.github.com/', token }), api)).to.equal(token);
      expect(await registryGithubToken(async () => ({ url: 'https://registry.example.com/v1', token }), api)).to.equal(undefined);
      expect(await registryGithubToken(async () => ({ url: null, token: null }), api)).to.equal(undefined);
      const err = await registryGithubToken(async () => {
        throw new SecretBoxError('unknown key id');
      }, api).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(BadGatewayError);
      expect((err as Error).message).to.match(/registry token .* cannot be decrypted/);
    });

    it('refetches after the cache time and keeps at most the configured number of catalogs', async () => {
      let now = 1_000_000;
      const catalogs = new SkillCatalogs({
        policy,
        githubApiUrl: github.url,
        githubToken: () => undefined,
        logger,
        now: () => now,
        bounds: { cacheEntries: 1 },
      });
      const repoHits = () => github.count('/repos/acme/skills?') + github.requests.filter((r) => r.path === '/repos/acme/skills').length;
      const start = repoHits();
      await catalogs.list('acme/skills/skills');
      await catalogs.list('acme/skills/skills');
      expect(repoHits()).to.equal(start + 1);
      now += 5 * 60_000 + 1;
      await catalogs.list('acme/skills/skills');
      expect(repoHits()).to.equal(start + 2);
      await catalogs.list('acme/skills/other');
      await catalogs.list('acme/skills/skills');
      expect(repoHits()).to.equal(start + 4);
    });

    it('gives up on a catalog that does not answer within the request timeout (502)', async () => {
      github.hangPrefix = '/repos/acme/skills/git/trees';
      try {
        const catalogs = new SkillCatalogs({
          policy,
          githubApiUrl: github.url,
          githubToken: () => undefined,
          logger,
          bounds: { requestTimeoutMs: 300 },
        });
        const started = Date.now();
        const err = await catalogs.list('acme/skills').catch((e: unknown) => e);
        expect(err).to.be.instanceOf(BadGatewayError);
        expect((err as Error).message).to.match(/timed out/);
        expect(Date.now() - started).to.be.lessThan(5000);
      } finally {
        github.hangPrefix = undefined;
      }
    });
  });
});
