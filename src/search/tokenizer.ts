import { stemmer } from 'stemmer';

/**
 * Words too common in tool texts to tell tools apart. BM25's IDF already discounts them; dropping
 * them keeps long descriptions from matching every query on "the" and "to".
 */
const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'for',
  'from',
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
  'please',
  'so',
  'that',
  'the',
  'this',
  'to',
  'use',
  'used',
  'using',
  'was',
  'we',
  'what',
  'when',
  'which',
  'will',
  'with',
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

/** Options of {@link tokenize}; the defaults are the ones the index uses. */
export interface TokenizeOptions {
  /** Porter-stem each term (`files` → `file`, `searching` → `search`). Default true. */
  stem?: boolean;
  /** Also emit a multi-part identifier joined (`list_issues` → `listissues`). Default true. */
  compounds?: boolean;
  /** Drop {@link STOP_WORDS}. Default true. */
  stopWords?: boolean;
}

/** Longest term kept; longer runs (base64 blobs, hashes) carry no meaning for search. */
const MAX_TERM_LENGTH = 40;

/**
 * The terms of a text, used the same way for documents and queries: identifiers split at
 * snake_case, kebab-case, camelCase and digit boundaries, lower-cased, stop words dropped,
 * Porter-stemmed; a multi-part identifier is also kept whole (`getUserById` → get, user, id,
 * getuserbyid) so that a query naming a tool exactly favours that tool.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const stem = options.stem ?? true;
  const compounds = options.compounds ?? true;
  const stopWords = options.stopWords ?? true;
  const terms: string[] = [];
  const add = (term: string) => {
    if (term.length > MAX_TERM_LENGTH || (stopWords && STOP_WORDS.has(term))) return;
    terms.push(stem ? stemmer(term) : term);
  };
  for (const match of text.matchAll(WORD)) {
    const parts = splitIdentifier(match[0]);
    for (const part of parts) add(part);
    if (compounds && parts.length > 1) add(parts.join(''));
  }
  return terms;
}
