import { expect } from 'chai';
import { KeywordIndex } from '../../../src/search/keyword-index.js';
import { synonymMap, TOOL_SYNONYM_GROUPS, TOOL_SYNONYMS } from '../../../src/search/synonyms.js';
import { toToolDocument, type ToolDocument } from '../../../src/search/tool-document.js';

function doc(id: string, name: string, description: string): ToolDocument {
  return toToolDocument({ id, name, description, serverName: 'srv', inputSchema: { type: 'object' } });
}

const CORPUS = [
  doc('create_issue', 'create_issue', 'Create an issue'),
  doc('delete_issue', 'delete_issue', 'Delete an issue'),
  doc('purge_entries', 'purge_entries', 'Remove entries'),
  doc('prune_entries', 'prune_entries', 'Delete entries'),
  doc('list_issues', 'list_issues', 'List the issues of a project'),
  doc('both', 'tidy', 'remove and delete old entries'),
];

function build(options: ConstructorParameters<typeof KeywordIndex>[0] = {}): KeywordIndex {
  const index = new KeywordIndex(options);
  for (const d of CORPUS) index.upsert(d);
  return index;
}

describe('tool search synonyms', () => {
  it('maps every word of a group to the other words of its group, never to itself', () => {
    const map = synonymMap([
      ['a', 'b', 'c'],
      ['c', 'd'],
    ]);
    expect(map.get('a')).to.deep.equal(['b', 'c']);
    expect(map.get('c')).to.deep.equal(['a', 'b', 'd']);
    expect(map.get('d')).to.deep.equal(['c']);
    for (const group of TOOL_SYNONYM_GROUPS) for (const w of group) expect(TOOL_SYNONYMS.get(w)).to.not.include(w);
  });

  it('finds a tool through a synonym of its verb', () => {
    expect(build().search('erase issue', { limit: 1 })[0]?.id).to.equal('delete_issue');
    expect(build().search('add a new issue', { limit: 1 })[0]?.id).to.equal('create_issue');
    // Without synonyms (and word vectors), "erase" matches nothing and "issue" alone cannot tell the tools apart.
    expect(build({ synonyms: new Map(), expansion: false }).search('erase issue', { limit: 1 })[0]?.id).to.not.equal('delete_issue');
  });

  it('weighs a synonym below the word itself', () => {
    const hits = build().search('remove entries', { limit: 2 });
    expect(hits.map((h) => h.id)).to.deep.equal(['purge_entries', 'prune_entries']);
    expect(hits[0]!.score).to.be.greaterThan(hits[1]!.score);
  });

  it('counts a synonym match as the query word, not as a second word', () => {
    const plain = build({ synonyms: new Map() });
    const remove = plain.search('remove', { limit: 5 }).find((h) => h.id === 'both')!.score;
    const del = plain.search('delete', { limit: 5 }).find((h) => h.id === 'both')!.score;
    const withSynonyms = build({ synonymWeight: 0.5 })
      .search('remove', { limit: 5 })
      .find((h) => h.id === 'both')!.score;
    // MiniSearch multiplies by the number of query words matched: one word here, however many synonyms.
    expect(withSynonyms).to.be.closeTo(remove + 0.5 * del, 1e-9);
  });

  it('does not expand a synonym that is itself a query word', () => {
    const plain = build({ synonyms: new Map() }).search('remove delete', { limit: 1 })[0]!;
    const synonyms = new Map([
      ['remove', ['delete']],
      ['delete', ['remove']],
    ]);
    const expanded = build({ synonyms }).search('remove delete', { limit: 1 })[0]!;
    expect(expanded).to.deep.equal(plain);
  });

  it('looks up at most 64 terms per query: synonyms of later words are dropped, never the words', () => {
    const words = Array.from(
      { length: 32 },
      (_w, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
    );
    const synonyms = new Map(words.map((w) => [w, [`${w}x`, `${w}y`, `${w}z`]]));
    const index = new KeywordIndex({ synonyms, prefixMinLength: 0 });
    index.upsert(doc('first_synonym', 'first', `${words[0]}z`));
    index.upsert(doc('last_synonym', 'last', `${words[31]}z`));
    index.upsert(doc('last_word', 'last_word', words[31]!));
    const found = index.search(words.join(' '), { limit: 10 }).map((h) => h.id);
    expect(found).to.include('first_synonym');
    expect(found).to.include('last_word');
    expect(found).to.not.include('last_synonym');
  });
  describe('a lexical thesaurus (option `thesaurus`)', () => {
    const thesaurus = { related: (w: string) => (w === 'erase' ? [{ term: 'purge', weight: 0.3 }] : []) };

    it('finds a tool through a related word the thesaurus gives', () => {
      const none = build({ synonyms: new Map() }).search('erase', { limit: 1 });
      expect(none).to.deep.equal([]);
      const hits = build({ synonyms: new Map(), thesaurus }).search('erase', { limit: 1 });
      expect(hits.map((h) => h.id)).to.deep.equal(['purge_entries']);
    });

    it('scores a related word at its weight and counts it as the query word', () => {
      const plain = build({ synonyms: new Map() });
      const purge = plain.search('purge', { limit: 1 })[0]!.score;
      const entries = plain.search('entries', { limit: 5 }).find((h) => h.id === 'purge_entries')!.score;
      const both = plain.search('purge entries', { limit: 1 })[0]!.score;
      const expanded = build({ synonyms: new Map(), thesaurus })
        .search('erase entries', { limit: 5 })
        .find((h) => h.id === 'purge_entries')!.score;
      // Two query words matched ("erase" through "purge", and "entries"): the same multiplier as "purge entries".
      expect(expanded).to.be.closeTo((both / (purge + entries)) * (0.3 * purge + entries), 1e-9);
    });
  });
});
