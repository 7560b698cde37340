import { expect } from 'chai';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

const WORKFLOW = `version: 1
tools:
  - name: word_stats
    description: Counts words of a text.
    language: javascript
    entry: scripts/stats.js
    input_schema:
      type: object
      properties:
        text: { type: string }
      required: [text]
`;

function skill(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: `The ${name} skill`,
    content: `# ${name}\n\nDo the thing.\n`,
    frontmatter: { license: 'MIT', 'allowed-tools': 'Read Bash', metadata: { author: 'tests' } },
    files: [
      { path: 'workflow.yaml', content: WORKFLOW },
      {
        path: 'scripts/stats.js',
        content: 'export function main({ text }) { return { words: text.split(/\\s+/).filter(Boolean).length }; }',
      },
    ],
    tags: ['text'],
    version: '1.0.0',
    ...extra,
  };
}

describe('Skill library (/api/v1/skills)', function () {
  this.timeout(60000);
  let t: TestServer;
  let member: TestUser;

  before(async () => {
    t = await startTestServer();
    member = await createUser(t, 'member');
  });
  after(async () => t?.stop());

  describe('POST /api/v1/skills', () => {
    it('creates a skill with frontmatter, files and the parsed workflow, and stores the files', async () => {
      const res = await t.owner.post('/api/v1/skills', skill('text-stats'));
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ name: 'text-stats', description: 'The text-stats skill', source: null, version: '1.0.0' });
      expect(res.body.frontmatter).to.deep.equal({ license: 'MIT', 'allowed-tools': 'Read Bash', metadata: { author: 'tests' } });
      expect(res.body.files.map((f: { path: string }) => f.path)).to.deep.equal(['scripts/stats.js', 'workflow.yaml']);
      expect(res.body.workflow.tools[0]).to.include({
        name: 'word_stats',
        language: 'javascript',
        entry: 'scripts/stats.js',
        timeout_ms: 10000,
      });
      const rows = await t.server.services.db.knex('skill_files').where({ skill_id: res.body.id }).select('path');
      expect(rows.map((r) => r.path).sort()).to.deep.equal(['scripts/stats.js', 'workflow.yaml']);
      const again = await t.owner.get(`/api/v1/skills/${res.body.id}`);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(res.body);
    });

    it('answers 409 skill_name_taken for a second skill of the same name', async () => {
      await t.owner.post('/api/v1/skills', skill('twice'));
      const res = await t.owner.post('/api/v1/skills', skill('twice'));
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('skill_name_taken');
      expect(res.body.detail).to.equal('A skill named "twice" exists');
    });

    for (const bad of ['-lead', 'trail-', 'dou--ble', 'Upper', 'under_score', 'a'.repeat(65)]) {
      it(`answers 422 for the name ${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}…` : bad)} (Agent Skills name rule)`, async () => {
        const res = await t.owner.post('/api/v1/skills', skill(bad));
        expect(res.status).to.equal(422);
        expect(res.body.detail[0].loc).to.deep.equal(['body', 'name']);
      });
    }

    it('answers 422 for frontmatter keys of the wrong type, and for name inside frontmatter', async () => {
      const res = await t.owner.post(
        '/api/v1/skills',
        skill('bad-fm', { frontmatter: { license: 3, metadata: 'x', name: 'y', 'allowed-tools': [1] } }),
      );
      expect(res.status).to.equal(422);
      const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
      expect(locs).to.include.members([
        'body.frontmatter.license',
        'body.frontmatter.metadata',
        'body.frontmatter.name',
        'body.frontmatter.allowed-tools',
      ]);
    });

    it('answers 422 when content carries its own frontmatter block', async () => {
      const res = await t.owner.post('/api/v1/skills', skill('fm-body', { content: '---\nname: x\n---\nbody' }));
      expect(res.status).to.equal(422);
      expect(res.body.detail[0].loc).to.deep.equal(['body', 'content']);
    });

    it('answers 422 for duplicate paths, SKILL.md among the files and a ../ path', async () => {
      const dup = await t.owner.post(
        '/api/v1/skills',
        skill('dup-paths', {
          files: [
            { path: 'a.txt', content: '1' },
            { path: 'a.txt', content: '2' },
          ],
        }),
      );
      expect(dup.status).to.equal(422);
      expect(dup.body.detail[0].loc).to.deep.equal(['body', 'files', 1, 'path']);
      const md = await t.owner.post('/api/v1/skills', skill('md-file', { files: [{ path: 'SKILL.md', content: 'x' }] }));
      expect(md.status).to.equal(422);
      const up = await t.owner.post('/api/v1/skills', skill('up-path', { files: [{ path: '../etc/passwd', content: 'x' }] }));
      expect(up.status).to.equal(422);
    });

    it('answers 422 with the location inside workflow.yaml for an invalid workflow', async () => {
      const files = [
        { path: 'workflow.yaml', content: 'tools:\n  - name: t\n    description: d\n    language: ruby\n    entry: missing.rb\n' },
      ];
      const res = await t.owner.post('/api/v1/skills', skill('bad-workflow', { files }));
      expect(res.status).to.equal(422);
      expect(res.body.detail[0].loc.slice(0, 4)).to.deep.equal(['body', 'files', 0, 'content']);
      expect(res.body.detail[0].type).to.equal('workflow_invalid');
      const missing = await t.owner.post(
        '/api/v1/skills',
        skill('bad-entry', {
          files: [
            {
              path: 'workflow.json',
              content: JSON.stringify({ tools: [{ name: 't', description: 'd', language: 'python', entry: 'x.py' }] }),
            },
          ],
        }),
      );
      expect(missing.status).to.equal(422);
      expect(missing.body.detail[0].loc).to.deep.equal(['body', 'files', 0, 'content', 'tools', 0, 'entry']);
      const yaml = await t.owner.post('/api/v1/skills', skill('bad-yaml', { files: [{ path: 'workflow.yaml', content: 'tools: [\n' }] }));
      expect(yaml.status).to.equal(422);
    });

    it('answers 413 skill_too_large when body and files pass 1,000,000 bytes, and writes nothing', async () => {
      const big = 'x'.repeat(480_000);
      const res = await t.owner.post(
        '/api/v1/skills',
        skill('too-big', {
          content: big,
          files: [
            { path: 'a.txt', content: big },
            { path: 'b.txt', content: 'y'.repeat(60_000) },
          ],
        }),
      );
      expect(res.status).to.equal(413);
      expect(res.body.code).to.equal('skill_too_large');
      expect(await t.server.services.db.knex('skills').where({ name: 'too-big' }).first()).to.equal(undefined);
    });

    it('answers 422 for more than 100 files and for a file over 500,000 characters', async () => {
      const many = Array.from({ length: 101 }, (_, i) => ({ path: `f${i}.txt`, content: 'x' }));
      expect((await t.owner.post('/api/v1/skills', skill('many-files', { files: many }))).status).to.equal(422);
      const one = await t.owner.post('/api/v1/skills', skill('big-file', { files: [{ path: 'a.txt', content: 'x'.repeat(500_001) }] }));
      expect(one.status).to.equal(422);
    });

    it('is refused to members (403) and to anonymous callers (401)', async () => {
      expect((await member.client.post('/api/v1/skills', skill('by-member'))).status).to.equal(403);
      expect((await t.anon.post('/api/v1/skills', skill('by-anon'))).status).to.equal(401);
    });
  });

  describe('GET /api/v1/skills', () => {
    it('lists by name with search on name or description, and pages', async () => {
      for (const n of ['list-b', 'list-a', 'list-c']) await t.owner.post('/api/v1/skills', skill(n, { description: `Listing ${n} zebra` }));
      const all = await member.client.get('/api/v1/skills?search=zebra');
      expect(all.status).to.equal(200);
      expect(all.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['list-a', 'list-b', 'list-c']);
      expect(all.body.total).to.equal(3);
      const page2 = await member.client.get('/api/v1/skills?search=zebra&page=2&page_size=2');
      expect(page2.body).to.include({ total: 3, page: 2, page_size: 2 });
      expect(page2.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['list-c']);
      expect((await member.client.get('/api/v1/skills?search=list-b')).body.total).to.equal(1);
      expect((await member.client.get('/api/v1/skills?search=%25')).body.total).to.equal(0);
    });
  });

  describe('PATCH and DELETE /api/v1/skills/{skill_id}', () => {
    it('changes only the supplied fields and replaces files as a whole', async () => {
      const created = (await t.owner.post('/api/v1/skills', skill('patch-me'))).body;
      const res = await t.owner.patch(`/api/v1/skills/${created.id}`, {
        description: 'Changed',
        files: [{ path: 'notes.md', content: 'n' }],
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: 'patch-me', description: 'Changed', content: created.content });
      expect(res.body.files).to.deep.equal([{ path: 'notes.md', content: 'n' }]);
      expect(res.body.workflow).to.equal(null);
      expect(res.body.frontmatter).to.deep.equal(created.frontmatter);
    });

    it('answers 409 when renamed to a taken name, 404 for an unknown skill', async () => {
      const a = (await t.owner.post('/api/v1/skills', skill('rename-a'))).body;
      await t.owner.post('/api/v1/skills', skill('rename-b'));
      const res = await t.owner.patch(`/api/v1/skills/${a.id}`, { name: 'rename-b' });
      expect(res.status).to.equal(409);
      expect((await t.owner.patch('/api/v1/skills/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).to.equal(404);
    });

    it('deletes a skill with its files', async () => {
      const created = (await t.owner.post('/api/v1/skills', skill('delete-me'))).body;
      expect((await t.owner.delete(`/api/v1/skills/${created.id}`)).status).to.equal(204);
      expect((await t.owner.get(`/api/v1/skills/${created.id}`)).status).to.equal(404);
      expect(await t.server.services.db.knex('skill_files').where({ skill_id: created.id })).to.have.length(0);
      expect((await t.owner.delete(`/api/v1/skills/${created.id}`)).status).to.equal(404);
    });
  });
});
