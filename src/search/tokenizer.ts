/**
 * Words too common in tool texts to tell tools apart. BM25's IDF already discounts them; dropping
 * them keeps long descriptions from matching every query on "the" and "to".
 */
const STOP_WORDS = new Set([
  'a',
  'about',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'could',
  'do',
  'does',
  'for',
  'from',
  'has',
  'have',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'me',
  'my',
  'of',
  'on',
  'or',
  'our',
  'please',
  'should',
  'so',
  'that',
  'the',
  'their',
  'them',
  'there',
  'these',
  'this',
  'those',
  'to',
  'us',
  'use',
  'used',
  'using',
  'was',
  'we',
  'what',
  'when',
  'where',
  'which',
  'who',
  'why',
  'will',
  'with',
  'would',
  'you',
  'your',
]);

/** Runs of letters, digits and the joiners of identifiers (`_`, `-`, `.`). */
const WORD = /[\p{L}\p{N}_.-]+/gu;
/** Boundaries inside one identifier: joiners, lower→Upper, ACRONYM→Word, letter↔digit. */
const PART_BOUNDARY = /[_.-]+|(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

/**
 * Splits one identifier into its lower-cased parts: `getUserById` → get, user, by, id;
 * `list_merge-requests` → list, merge, requests; `HTTPServer2` → http, server, 2.
 */
export function splitIdentifier(word: string): string[] {
  const parts: string[] = [];
  for (const part of word.split(PART_BOUNDARY)) if (part) parts.push(part.toLowerCase());
  return parts;
}

/**
 * Light plural stemmer (after Harman's S-stemmer, with the sibilant plurals added): `files` →
 * `file`, `repositories` → `repository`, `indexes` → `index`, `matches` → `match`. Available as
 * `stem: true`; not the default: on the labelled set (BENCHMARKS.md, "Tool search") no stemming
 * ranked best, plural stemming next, Porter stemming (which conflates `manager`/`manage`,
 * `directions`/`direct`, `driving`/`drive`) worst. With stemming on, a term is indexed both as
 * written and stemmed, so an exact form still scores above a mere stem match.
 */
export function pluralStem(term: string): string {
  if (term.length <= 3 || !term.endsWith('s')) return term;
  if (term.endsWith('ies') && !term.endsWith('eies') && !term.endsWith('aies')) return `${term.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh|zz)es$/.test(term)) return term.slice(0, -2);
  if (term.endsWith('es') && !term.endsWith('aes') && !term.endsWith('ees') && !term.endsWith('oes')) return term.slice(0, -1);
  if (term.endsWith('us') || term.endsWith('ss') || term.endsWith('is')) return term;
  return term.slice(0, -1);
}

/** Options of {@link tokenize}; the defaults are the ones the index uses. */
export interface TokenizeOptions {
  /** Stem each term: false = none (default), true = {@link pluralStem}, or a stemmer of your own. */
  stem?: boolean | ((term: string) => string);
  /** Also emit a multi-part identifier joined (`list_issues` → `listissues`). Default true. */
  compounds?: boolean;
  /** Drop {@link STOP_WORDS}. Default true. */
  stopWords?: boolean;
}

/** Longest term kept; longer runs (base64 blobs, hashes) carry no meaning for search. */
const MAX_TERM_LENGTH = 40;

/**
 * The terms of a text, used the same way for documents and queries: identifiers split at
 * snake_case, kebab-case, camelCase and digit boundaries, lower-cased, stop words dropped
 * (stemmed only when asked); a multi-part identifier is also kept whole (`getUserById` → get,
 * user, id, getuserbyid) so that a query naming a tool exactly favours that tool.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const stem = options.stem === true ? pluralStem : options.stem || undefined;
  const compounds = options.compounds ?? true;
  const stopWords = options.stopWords ?? true;
  const terms: string[] = [];
  const add = (term: string) => {
    if (term.length > MAX_TERM_LENGTH || (stopWords && STOP_WORDS.has(term))) return;
    const stemmed = stem ? stem(term) : term;
    terms.push(term);
    if (stemmed !== term) terms.push(stemmed);
  };
  for (const match of text.matchAll(WORD)) {
    const parts = splitIdentifier(match[0]);
    for (const part of parts) add(part);
    if (compounds && parts.length > 1) add(parts.join(''));
  }
  return terms;
}
