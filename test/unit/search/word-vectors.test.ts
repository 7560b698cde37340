import { expect } from 'chai';
import { KeywordIndex } from '../../../src/search/keyword-index.js';
import { toToolDocument, type ToolDocument } from '../../../src/search/tool-document.js';
import { defaultWordVectors, VocabularyNeighbours, WordVectors } from '../../../src/search/word-vectors.js';

function doc(id: string, description: string, name = id): ToolDocument {
  return toToolDocument({ id, name, description, serverName: 'srv', inputSchema: { type: 'object' } });
}

/** A table in the format of scripts/build-search-lexicon.ts, from small integer vectors. */
function table(entries: [string, number[]][]): Uint8Array {
  const dims = entries[0]![1].length;
  const header = Buffer.alloc(16);
  header.write('TGWV', 0, 'latin1');
  header.writeUInt32LE(1, 4);
  header.writeUInt32LE(entries.length, 8);
  header.writeUInt32LE(dims, 12);
  const norms = Buffer.alloc(entries.length * 4);
  entries.forEach(([, v], i) => norms.writeFloatLE(1 / Math.sqrt(v.reduce((s, x) => s + x * x, 0)), i * 4));
  const vectors = Buffer.from(Int8Array.from(entries.flatMap(([, v]) => v)).buffer);
  return Buffer.concat([header, norms, vectors, Buffer.from(entries.map(([w]) => w).join('\n'))]);
}

const TINY = WordVectors.parse(
  table([
    ['latitude', [100, 10, 0]],
    ['coordinates', [90, 30, 0]],
    ['longitude', [95, 20, 5]],
    ['email', [0, 10, 100]],
    ['banana', [-50, 80, 0]],
  ]),
);

describe('word vectors for query expansion', () => {
  describe('WordVectors', () => {
    it('reads the table format and measures cosine similarity', () => {
      expect(TINY.size).to.equal(5);
      expect(TINY.dims).to.equal(3);
      expect(TINY.similarity('latitude', 'latitude')).to.be.closeTo(1, 1e-6);
      expect(TINY.similarity('latitude', 'coordinates')).to.be.greaterThan(0.9);
      expect(TINY.similarity('latitude', 'email')).to.be.lessThan(0.2);
      expect(TINY.similarity('latitude', 'unknown')).to.equal(0);
    });

    it('rejects a malformed or truncated table', () => {
      expect(() => WordVectors.parse(Buffer.from('not a table at all'))).to.throw(/word-vector table/);
      const good = table([['a', [1, 2]]]);
      expect(() => WordVectors.parse(good.subarray(0, 20))).to.throw(/truncated/);
    });

    it('ships a table in which related words are near and unrelated ones are not', () => {
      const vectors = defaultWordVectors();
      expect(vectors, 'src/search/lexicon/word-vectors.bin must load').to.not.equal(null);
      expect(vectors!.size).to.be.greaterThan(30_000);
      expect(vectors!.similarity('latitude', 'longitude')).to.be.greaterThan(0.7);
      expect(vectors!.similarity('latitude', 'coordinates')).to.be.greaterThan(vectors!.similarity('latitude', 'banana'));
      expect(vectors!.similarity('boss', 'manager')).to.be.greaterThan(0.5);
    });
  });

  describe('VocabularyNeighbours', () => {
    it('returns only words of the index, nearest first, above the threshold, never the word itself', () => {
      const n = new VocabularyNeighbours(TINY);
      n.addTerms(['coordinates', 'email', 'latitude', 'notinthetable']);
      expect(n.size).to.equal(3);
      const near = n.neighbours('latitude', 5, 0.5);
      expect(near.map((x) => x.term)).to.deep.equal(['coordinates']);
      expect(n.neighbours('latitude', 5, -1).map((x) => x.term)).to.deep.equal(['coordinates', 'email']);
      expect(n.neighbours('latitude', 0, -1)).to.deep.equal([]);
      expect(n.neighbours('unknown', 5, -1)).to.deep.equal([]);
    });

    it('sees words added after a lookup (the cached answer is dropped)', () => {
      const n = new VocabularyNeighbours(TINY);
      n.addTerms(['email']);
      expect(n.neighbours('latitude', 3, 0.5)).to.deep.equal([]);
      n.addTerms(['longitude', 'coordinates']);
      expect(n.neighbours('latitude', 3, 0.5).map((x) => x.term)).to.deep.equal(['longitude', 'coordinates']);
    });
  });

  describe('KeywordIndex expansion', () => {
    const geocode = doc('geocode', 'Convert a place name into geographic coordinates');
    const mail = doc('send_mail', 'Send an email to a recipient');
    const build = (docs: ToolDocument[], options: ConstructorParameters<typeof KeywordIndex>[0] = {}) => {
      const index = new KeywordIndex(options);
      for (const d of docs) index.upsert(d);
      return index;
    };

    it('finds a tool that shares no word with the query through a near word', () => {
      const query = 'latitude of the Eiffel Tower';
      expect(build([geocode, mail], { expansion: {} }).search(query, { limit: 1 })[0]?.id).to.equal('geocode');
      // Off by default.
      expect(build([geocode, mail]).search(query, { limit: 1 })).to.deep.equal([]);
      expect(build([geocode, mail], { expansion: false }).search(query, { limit: 1 })).to.deep.equal([]);
    });

    it('ranks an exact match above a match through an expansion', () => {
      const exact = doc('exact', 'Show the latitude of a place');
      const near = doc('near', 'Show the coordinates of a place');
      const index = build([near, exact, mail], { expansion: { expandKnownWords: true } });
      const hits = index.search('latitude', { limit: 5 });
      expect(hits.map((h) => h.id)).to.deep.equal(['exact', 'near']);
      expect(hits[1]!.score).to.be.lessThan(hits[0]!.score * 0.6);
    });

    it('by default expands only the query words that no indexed tool uses', () => {
      const a = doc('a', 'Show the latitude of a place');
      const b = doc('b', 'Show the longitude of a place');
      expect(
        build([a, b])
          .search('latitude', { limit: 5 })
          .map((h) => h.id),
      ).to.deep.equal(['a']);
      expect(
        build([a, b], { expansion: { expandKnownWords: true } })
          .search('latitude', { limit: 5 })
          .map((h) => h.id),
      ).to.deep.equal(['a', 'b']);
    });

    it('reads the table on the first search, not on indexing, and only once', () => {
      let reads = 0;
      const index = build([geocode, mail], {
        expansion: {
          vectors: () => {
            reads++;
            return TINY;
          },
        },
      });
      expect(reads).to.equal(0);
      expect(index.search('latitude', { limit: 1 })[0]?.id).to.equal('geocode');
      index.upsert(doc('other', 'An email about bananas'));
      index.search('banana', { limit: 1 });
      expect(reads).to.equal(1);
    });

    it('searches without expansion when the table is missing', () => {
      const index = build([geocode, mail], { expansion: { vectors: () => null } });
      expect(index.search('latitude', { limit: 1 })).to.deep.equal([]);
      expect(index.search('email', { limit: 1 })[0]?.id).to.equal('send_mail');
    });
  });
});
