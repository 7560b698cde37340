import { expect } from 'chai';
import fc from 'fast-check';
import { KeywordIndex } from '../../../src/search/keyword-index.js';
import { argumentsOfSchema, contentHash, embeddingText, toolDocumentId, toToolDocument } from '../../../src/search/tool-document.js';

describe('tool documents', () => {
  it('reads argument names and descriptions from the input schema, nested ones dotted', () => {
    const args = argumentsOfSchema({
      type: 'object',
      properties: {
        owner: { type: 'string', description: 'Repository owner' },
        labels: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', description: 'Label name' } } } },
        options: { type: 'object', properties: { draft: { type: 'boolean' } } },
      },
    });
    expect(args).to.deep.equal([
      { name: 'owner', description: 'Repository owner' },
      { name: 'labels', description: '' },
      { name: 'labels.name', description: 'Label name' },
      { name: 'options', description: '' },
      { name: 'options.draft', description: '' },
    ]);
  });

  it('survives hostile schemas: wrong types, prototype keys, huge and deep ones', () => {
    expect(argumentsOfSchema(null)).to.deep.equal([]);
    expect(argumentsOfSchema('x')).to.deep.equal([]);
    expect(argumentsOfSchema({ properties: [1, 2] })).to.deep.equal([]);
    expect(argumentsOfSchema({ properties: { a: 5, b: { description: 7 } } })).to.deep.equal([
      { name: 'a', description: '' },
      { name: 'b', description: '' },
    ]);
    const proto = JSON.parse('{"properties":{"__proto__":{"description":"polluted"},"constructor":{}}}');
    expect(argumentsOfSchema(proto).map((a) => a.name)).to.deep.equal(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).description).to.equal(undefined);
    const huge = { properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { description: 'x'.repeat(10_000) }])) };
    const args = argumentsOfSchema(huge);
    expect(args).to.have.length(64);
    expect(args[0]!.description).to.have.length(300);
    let deep: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < 1000; i++) deep = { type: 'object', properties: { n: deep } };
    expect(argumentsOfSchema(deep).map((a) => a.name)).to.deep.equal(['n', 'n.n', 'n.n.n']);
  });

  it('builds the embedded text from everything the caller sees', () => {
    const doc = toToolDocument({
      id: toolDocumentId('b1', 't1'),
      name: 'create_issue',
      title: 'Create issue',
      description: 'Opens an issue',
      serverName: 'github',
      inputSchema: { properties: { title: { description: 'Issue title' } } },
    });
    expect(doc.id).to.equal('b1:t1');
    expect(embeddingText(doc)).to.equal('create_issue (Create issue)\nOpens an issue\nArguments: title: Issue title\nServer: github');
  });

  it('hashes model and text together (a model change changes every key)', () => {
    expect(contentHash('m1', 'text')).to.match(/^[0-9a-f]{64}$/);
    expect(contentHash('m1', 'text')).to.not.equal(contentHash('m2', 'text'));
    expect(contentHash('m1', 'ab')).to.not.equal(contentHash('m1a', 'b'));
  });

  it('property: any document and any query text index and search without throwing', function () {
    this.timeout(60000);
    const index = new KeywordIndex();
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.jsonValue(),
        (name, query, schema) => {
          const doc = toToolDocument({ id: name || 'x', name, description: query, serverName: name, inputSchema: schema });
          index.upsert(doc);
          const hits = index.search(query, { limit: 5 });
          expect(hits.length).to.be.at.most(5);
        },
      ),
      { numRuns: 500, seed: 9 },
    );
    expect(index.search('x'.repeat(1_000_000), { limit: 5 })).to.be.an('array');
    expect(index.search(Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(' '), { limit: 5 })).to.be.an('array');
  });
});
