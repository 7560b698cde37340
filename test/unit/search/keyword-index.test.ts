import { expect } from 'chai';
import fc from 'fast-check';
import { KeywordIndex } from '../../../src/search/keyword-index.js';
import { toToolDocument, type ToolDocument } from '../../../src/search/tool-document.js';

function doc(id: string, name: string, description: string, serverName = 'srv', properties: Record<string, unknown> = {}): ToolDocument {
  return toToolDocument({ id, name, description, serverName, inputSchema: { type: 'object', properties } });
}

const CORPUS: ToolDocument[] = [
  doc('gh:create_issue', 'create_issue', 'Create a new issue in a GitHub repository', 'github', {
    owner: { type: 'string', description: 'Repository owner' },
    repo: { type: 'string' },
    title: { type: 'string', description: 'Issue title' },
  }),
  doc('gh:list_issues', 'list_issues', 'List issues in a GitHub repository with filtering options', 'github'),
  doc('gh:create_pull_request', 'create_pull_request', 'Create a new pull request in a GitHub repository', 'github'),
  doc('fs:read_file', 'read_file', 'Read the complete contents of a file from the file system', 'filesystem', {
    path: { type: 'string' },
  }),
  doc('fs:write_file', 'write_file', 'Create a new file or completely overwrite an existing file with new content', 'filesystem'),
  doc('fs:list_directory', 'list_directory', 'Get a detailed listing of all files and directories in a specified path', 'filesystem'),
  doc('pw:browser_take_screenshot', 'browser_take_screenshot', 'Take a screenshot of the current page', 'playwright'),
  doc('pw:browser_navigate', 'browser_navigate', 'Navigate to a URL', 'playwright', {
    url: { type: 'string', description: 'The URL to navigate to' },
  }),
  doc('slack:post_message', 'slack_post_message', 'Post a new message to a Slack channel', 'slack', {
    channel_id: { type: 'string', description: 'The ID of the channel to post to' },
  }),
  doc('mem:createEntities', 'createEntities', 'Create multiple new entities in the knowledge graph', 'memory'),
  doc('pg:query', 'query', 'Run a read-only SQL query', 'postgres', { sql: { type: 'string' } }),
];

function build(docs = CORPUS): KeywordIndex {
  const index = new KeywordIndex();
  for (const d of docs) index.upsert(d);
  return index;
}

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

describe('KeywordIndex', () => {
  describe('ranking', () => {
    it('ranks the tool a natural-language query describes first', () => {
      const index = build();
      expect(ids(index.search('open an issue on github', { limit: 3 }))[0]).to.equal('gh:create_issue');
      expect(ids(index.search('screenshot of the web page', { limit: 3 }))[0]).to.equal('pw:browser_take_screenshot');
      expect(ids(index.search('send a message to a slack channel', { limit: 3 }))[0]).to.equal('slack:post_message');
      expect(ids(index.search('run an SQL query against the database', { limit: 3 }))[0]).to.equal('pg:query');
    });

    it('finds a tool by its exact name in any case convention', () => {
      const index = build();
      for (const q of ['create_pull_request', 'createPullRequest', 'create-pull-request']) {
        expect(ids(index.search(q, { limit: 1 })), q).to.deep.equal(['gh:create_pull_request']);
      }
      expect(ids(index.search('create entities', { limit: 1 }))).to.deep.equal(['mem:createEntities']);
    });

    it('matches query words of six letters or more as prefixes', () => {
      const index = build();
      expect(ids(index.search('screensh', { limit: 1 }))).to.deep.equal(['pw:browser_take_screenshot']);
      expect(ids(index.search('directo listing', { limit: 1 }))).to.deep.equal(['fs:list_directory']);
      expect(index.search('scree', { limit: 1 })).to.deep.equal([]); // five letters: whole words only
    });

    it('matches plurals when plural stemming is on', () => {
      const stemming = new KeywordIndex({ tokenizer: { stem: true } });
      for (const d of CORPUS) stemming.upsert(d);
      expect(ids(stemming.search('entity', { limit: 1 }))).to.deep.equal(['mem:createEntities']);
      const plain = new KeywordIndex({ expansion: false });
      for (const d of CORPUS) plain.upsert(d);
      expect(plain.search('entity', { limit: 1 })).to.deep.equal([]);
    });

    it('uses argument names and descriptions', () => {
      const index = build();
      expect(ids(index.search('channel id', { limit: 1 }))).to.deep.equal(['slack:post_message']);
    });

    it('returns scores in descending order and at most limit hits', () => {
      const hits = build().search('create a new file or issue in a repository', { limit: 4 });
      expect(hits).to.have.length(4);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).to.be.at.least(hits[i]!.score);
    });

    it('answers [] for a query without terms', () => {
      expect(build().search('  the of a  ', { limit: 5 })).to.deep.equal([]);
      expect(build().search('', { limit: 5 })).to.deep.equal([]);
    });
  });

  describe('incremental updates', () => {
    it('replaces a document in place: the old text no longer matches, the new one does', () => {
      const index = build();
      index.upsert(doc('fs:read_file', 'read_file', 'Fetch a weather forecast for a city', 'filesystem'));
      expect(index.size).to.equal(CORPUS.length);
      expect(ids(index.search('weather forecast', { limit: 3 }))).to.deep.equal(['fs:read_file']);
      expect(ids(index.search('complete contents', { limit: 5 }))).to.not.include('fs:read_file');
    });

    it('removes a document', () => {
      const index = build();
      expect(index.remove('gh:create_issue')).to.equal(true);
      expect(index.remove('gh:create_issue')).to.equal(false);
      expect(index.has('gh:create_issue')).to.equal(false);
      expect(ids(index.search('create issue', { limit: 20 }))).to.not.include('gh:create_issue');
      index.upsert(CORPUS[0]!);
      expect(ids(index.search('create issue', { limit: 1 }))).to.deep.equal(['gh:create_issue']);
    });

    it('answers like a fresh index after many replacements and removals', () => {
      const index = build();
      for (let round = 0; round < 30; round++) {
        for (const d of CORPUS) index.upsert(d);
        index.remove(CORPUS[round % CORPUS.length]!.id);
        index.upsert(CORPUS[round % CORPUS.length]!);
      }
      const fresh = build();
      for (const q of ['create issue', 'file contents', 'slack channel message', 'screenshot']) {
        const a = index.search(q, { limit: 5 });
        const b = fresh.search(q, { limit: 5 });
        expect(ids(a), q).to.deep.equal(ids(b));
        a.forEach((h, i) => expect(h.score).to.be.closeTo(b[i]!.score, 1e-9));
      }
    });
  });

  describe('filtering by the allowed set', () => {
    it('never returns a document outside the allowed set, even the best match', () => {
      const index = build();
      const allowed = new Set(['gh:list_issues', 'fs:read_file']);
      expect(ids(index.search('create_issues', { limit: 10, allowed }))).to.deep.equal(['gh:list_issues']);
      expect(index.search('create issue', { limit: 10, allowed: new Set() })).to.deep.equal([]);
    });

    it('fills the top k from allowed documents only (filter before top k)', () => {
      const index = build();
      const allowed = new Set(['fs:write_file', 'gh:create_pull_request']);
      // Unfiltered, the top 2 for this query are other tools; filtered, both allowed ones come back.
      expect(ids(index.search('create a new issue', { limit: 2 }))).to.not.have.members([...allowed]);
      expect(ids(index.search('create a new issue', { limit: 2, allowed }))).to.have.members([...allowed]);
    });

    it('reuses one allowed set across searches and index changes (its mask is rebuilt when documents are added)', () => {
      const index = build();
      const allowed = new Set(['gh:list_issues', 'fs:read_file', 'new:issue_tracker']);
      expect(ids(index.search('github', { limit: 10, allowed }))).to.deep.equal(['gh:list_issues']);
      index.upsert(doc('new:issue_tracker', 'issue_tracker', 'Track issues', 'github'));
      expect(ids(index.search('github', { limit: 10, allowed }))).to.have.members(['gh:list_issues', 'new:issue_tracker']);
      index.remove('new:issue_tracker');
      expect(ids(index.search('github', { limit: 10, allowed }))).to.deep.equal(['gh:list_issues']);
      // A caller that changes the set it passed (same object, same size) still gets nothing outside it.
      allowed.delete('gh:list_issues');
      allowed.add('gh:missing');
      expect(ids(index.search('github', { limit: 10, allowed }))).to.deep.equal([]);
    });

    it('property: no result outside the allowed set, and every allowed match is found', function () {
      this.timeout(60000);
      const vocabulary = ['create', 'list', 'file', 'issue', 'repo', 'user', 'delete', 'query', 'browser', 'page', 'message', 'channel'];
      const text = fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: text, description: text }), {
            minLength: 1,
            maxLength: 40,
            selector: (d) => d.id,
          }),
          fc.func(fc.boolean()),
          text,
          fc.integer({ min: 1, max: 50 }),
          (docs, pick, query, limit) => {
            const index = new KeywordIndex();
            for (const d of docs) index.upsert(doc(d.id, d.name, d.description));
            const allowed = new Set(docs.filter((d) => pick(d.id)).map((d) => d.id));
            const hits = index.search(query, { limit, allowed });
            for (const h of hits) expect(allowed.has(h.id), `${h.id} is not allowed`).to.equal(true);
            const everything = index.search(query, { limit: 1000 });
            const allowedMatches = everything.filter((h) => allowed.has(h.id));
            expect(hits.length).to.equal(Math.min(limit, allowedMatches.length));
          },
        ),
        { numRuns: 300, seed: 9 },
      );
    });
  });

  describe('top-k scoring', () => {
    it('ranks and scores exactly like MiniSearch.search() on the same index (property)', function () {
      this.timeout(60000);
      const vocabulary = [
        'create',
        'creates',
        'list',
        'listing',
        'file',
        'files',
        'issue',
        'repository',
        'repositories',
        'delete',
        'query',
        'browser',
        'message',
      ];
      const text = fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: text, description: text, server: text }), {
            minLength: 1,
            maxLength: 40,
            selector: (d) => d.id,
          }),
          fc.option(fc.func(fc.boolean()), { nil: undefined }),
          text,
          fc.integer({ min: 1, max: 30 }),
          fc.func(fc.constantFrom('keep', 'change', 'remove')),
          (docs, pick, query, limit, update) => {
            const index = new KeywordIndex({ synonyms: new Map(), expansion: false });
            // Documents replaced or removed after indexing: postings must not go stale.
            for (const d of docs) index.upsert(doc(d.id, d.description, d.name, d.server));
            for (const d of docs) if (update(d.id) === 'remove') index.remove(d.id);
            for (const d of docs)
              if (update(d.id) === 'change')
                index.upsert(
                  doc(d.id, d.name, d.description, d.server, { [d.name.split(' ')[0]!]: { type: 'string', description: d.description } }),
                );
            const allowed = pick ? new Set(docs.filter((d) => pick(d.id)).map((d) => d.id)) : undefined;
            const hits = index.search(query, { limit, allowed });
            const reference = index.referenceSearch(query, { limit, allowed });
            expect(hits.length).to.equal(reference.length);
            // Same scores in the same order; ids may differ only between equal scores (sums in another order).
            hits.forEach((h, i) => expect(h.score).to.be.closeTo(reference[i]!.score, 1e-9));
            const referenceScore = new Map(index.referenceSearch(query, { limit: 1000, allowed }).map((h) => [h.id, h.score]));
            for (const h of hits) expect(h.score).to.be.closeTo(referenceScore.get(h.id)!, 1e-9);
          },
        ),
        { numRuns: 300, seed: 17 },
      );
    });

    it('keeps equal scores in the order MiniSearch returns them', () => {
      const index = new KeywordIndex({ synonyms: new Map(), expansion: false });
      for (const id of ['c', 'a', 'b']) index.upsert(doc(id, 'same_tool', 'Identical text', 'srv'));
      expect(ids(index.search('same tool', { limit: 3 }))).to.deep.equal(ids(index.referenceSearch('same tool', { limit: 3 })));
      expect(ids(index.search('same tool', { limit: 2 }))).to.deep.equal(['c', 'a']);
    });
  });
});
