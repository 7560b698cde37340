/**
 * Redaction of secrets (and, optionally, personal data) in tool arguments and results: the
 * guardrail that keeps keys, tokens and private keys a tool happens to return out of a model's
 * context, and out of upstreams' hands when a caller pastes one into an argument.
 *
 * Only high-confidence formats are redacted: each pattern is a vendor's documented key shape
 * (a fixed prefix and a fixed alphabet and length), so ordinary text almost never matches. Each
 * match becomes a marker naming its kind (`[REDACTED:aws_access_key]`), and the number of
 * replacements is counted for the call record.
 *
 * The common case is text with nothing to redact, and it must cost next to nothing on the call
 * path: `mayContainSecret` is a quick test for literals every secret pattern's match contains
 * (each found by a memchr-speed scan for a rare character), run before any full pattern; a value is walked (string leaves
 * only) and copied only when something in it was replaced. Personal data (emails, card numbers
 * with a valid Luhn check digit, IBANs with a valid checksum, international phone numbers) is
 * off by default: it has no cheap prefix, so it costs a scan of every string when it is on.
 */

/** What a redactor replaces. */
export interface RedactionOptions {
  /** High-confidence secrets: private keys, cloud keys, tokens (on by default). */
  readonly secrets: boolean;
  /** Personal data: emails, card numbers, IBANs, phone numbers (off by default). */
  readonly pii: boolean;
}

/** One kind of secret or personal datum: its marker name and its pattern (global). */
interface Pattern {
  readonly kind: string;
  readonly re: RegExp;
  /** Keeps the first two capture groups (a label and its separator) and replaces the rest; absent: the whole match. */
  readonly keepLabel?: boolean;
  /** A check of the match beyond its shape (a checksum); absent: every match counts. */
  readonly valid?: (match: string) => boolean;
}

/** The marker that replaces a redacted value. */
export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** Characters that continue a token: a match must not be the start of a longer word. */
const TAIL = '(?![A-Za-z0-9_-])';

/**
 * The secret patterns, in the order they are applied (a private key block first: its body could
 * hold anything). Every match of every pattern holds a marker that `mayContainSecret` finds.
 */
const SECRET_PATTERNS: readonly Pattern[] = [
  {
    kind: 'private_key',
    // A PEM private key block (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP …); a block cut short is redacted to the end of the text.
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
  },
  { kind: 'aws_access_key', re: new RegExp(`(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}${TAIL}`, 'g') },
  {
    kind: 'aws_secret_key',
    // Only where it is labelled as one (a bare 40-character string is anything): `aws_secret_access_key = …`, `"SecretAccessKey": "…"`.
    re: /((?:aws_?)?secret_?access_?key|(?:AWS_?)?SECRET_?ACCESS_?KEY|(?:Aws)?SecretAccessKey|secretAccessKey)(["']?\s*[:=]\s*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/g,
    keepLabel: true,
  },
  { kind: 'github_token', re: new RegExp(`(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,240})${TAIL}`, 'g') },
  { kind: 'gitlab_token', re: new RegExp(`(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}${TAIL}`, 'g') },
  { kind: 'slack_token', re: new RegExp(`(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,}${TAIL}`, 'g') },
  { kind: 'stripe_key', re: new RegExp(`(?<![A-Za-z0-9])[sr]k_live_[A-Za-z0-9]{20,}${TAIL}`, 'g') },
  { kind: 'google_api_key', re: new RegExp(`(?<![A-Za-z0-9])AIza[A-Za-z0-9_-]{35}${TAIL}`, 'g') },
  { kind: 'anthropic_key', re: new RegExp(`(?<![A-Za-z0-9])sk-ant-[a-z]+[0-9]{2}-[A-Za-z0-9_-]{32,}${TAIL}`, 'g') },
  {
    kind: 'openai_key',
    // Project, service-account and admin keys; the older 48-character form, with or without its `T3BlbkFJ` marker.
    re: new RegExp(
      `(?<![A-Za-z0-9])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})${TAIL}`,
      'g',
    ),
  },
  {
    kind: 'jwt',
    // Header and payload are base64url JSON objects (`eyJ` is `{"`); the signature may be empty (alg none).
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*(?![A-Za-z0-9_-])/g,
  },
  {
    kind: 'toolgate_key',
    // src/domain/api-key-format.ts (user keys) and bundle keys: `<prefix>_usr_live_…`, `<prefix>_bdl_…`, 43 base64url characters.
    re: new RegExp(`(?<![A-Za-z0-9])[a-z][a-z0-9]{1,15}_(?:usr_(?:live|test)|bdl)_[A-Za-z0-9_-]{43}${TAIL}`, 'g'),
  },
];

/**
 * The quick test: every secret pattern's match contains a marker found here. Each marker is found
 * by scanning for one character that is rare in ordinary text (`indexOf` of one character is a
 * memchr, many times faster than any regular expression over the same text) and looking around
 * each occurrence; a rare character means few looks. One scan serves every marker around the same
 * character:
 *
 * - `A`: `AKIA`, `ASIA` (AWS key ids), `AIza` (Google API keys);
 * - `K`: `KEY` (a PEM private key block, an upper-case AWS label), `Key` (a camel-case AWS label);
 * - `k`: `key` (a lower-case AWS label), `sk-` (OpenAI and Anthropic keys);
 * - `J`: `eyJ` (a JWT);
 * - `_`: `gh[pousr]_`, `github_pat_` (GitHub), `k_live_` (Stripe), `_usr_`, `_bdl_` (Toolgate keys);
 * - `-`: `xox?-` (Slack), `glpat-` (GitLab). Found from their dash, not their first letter: a
 *   substring search for `xox` walks every `x` of a run of them (6 µs for a KiB of `x`, against
 *   30 ns from the dash, which such a run does not have).
 *
 * A text full of the scanned character (a run of `-` in a Markdown table, of `_`, of `A`) would
 * cost a look per occurrence, ~25 ns each (28 µs for a KiB of `-`): after `MAX_LOOKS` looks the
 * rest of the text is tested by the marker group's regular expression instead, which matches
 * wherever a look would (never fewer places) and costs under a microsecond per KiB.
 *
 * The unit tests check every pattern's positives against it, and against runs of each character.
 */
function scan(text: string, ch: string, from: number, look: (i: number) => boolean, rest: RegExp): boolean {
  let looks = 0;
  for (let i = text.indexOf(ch, from); i >= 0; i = text.indexOf(ch, i + 1)) {
    if (look(i)) return true;
    if (++looks === MAX_LOOKS) {
      // From a few characters before this one: every marker spans at most 6 characters around it.
      rest.lastIndex = Math.max(0, i - 6);
      return rest.test(text);
    }
  }
  return false;
}

/** Looks per scanned character before the rest of the text goes to the regular expression. */
const MAX_LOOKS = 32;

/** Each marker group as one sticky-free global expression (`lastIndex` sets where it starts). */
const REST_A = /A(?:KIA|SIA|Iza)/g;
const REST_K = /K(?:EY|ey)/g;
const REST_k = /key|sk-/g;
const REST_J = /eyJ/g;
const REST_UNDERSCORE = /gh[pousr]_|k_live_|github_|_usr_|_bdl_/g;
const REST_DASH = /xox[\s\S]-|glpat-/g;

const at = (text: string, i: number): number => text.charCodeAt(i);

const lookA = (text: string) => (i: number) => {
  const b = at(text, i + 1);
  return ((b === 75 /* K */ || b === 83) /* S */ && text.startsWith('IA', i + 2)) || (b === 73 /* I */ && text.startsWith('za', i + 2));
};
const lookK = (text: string) => (i: number) => text.startsWith('EY', i + 1) || text.startsWith('ey', i + 1);
const lookk = (text: string) => (i: number) =>
  text.startsWith('ey', i + 1) || (at(text, i + 1) === 45 /* - */ && at(text, i - 1) === 115); /* s */
const lookJ = (text: string) => (i: number) => at(text, i - 1) === 121 /* y */ && at(text, i - 2) === 101; /* e */
const lookDash = (text: string) => (i: number) =>
  (at(text, i - 4) === 120 /* x */ && text.startsWith('ox', i - 3)) || (i >= 5 && text.startsWith('glpat', i - 5));
const lookUnderscore = (text: string) => (i: number) => {
  const p = at(text, i - 1);
  // gh[pousr]_
  if ((p === 112 || p === 111 || p === 117 || p === 115 || p === 114) && at(text, i - 2) === 104 && at(text, i - 3) === 103) return true;
  if (p === 107 /* k */ && text.startsWith('live_', i + 1)) return true;
  if (p === 98 /* b */ && text.startsWith('github', i - 6)) return true;
  return text.startsWith('usr_', i + 1) || text.startsWith('bdl_', i + 1);
};

/** The shortest text any secret pattern matches (a 20-character AWS key id). */
const SHORTEST_SECRET = 20;

/** Luhn check of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** ISO 13616 check of an IBAN (spaces allowed): the rearranged number modulo 97 is 1. */
export function ibanValid(text: string): boolean {
  const iban = text.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) rem = (rem * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

const PII_PATTERNS: readonly Pattern[] = [
  { kind: 'email', re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])/g },
  { kind: 'iban', re: /(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g, valid: ibanValid },
  {
    kind: 'card_number',
    re: /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g,
    valid: (m) => luhnValid(m.replace(/[ -]/g, '')),
  },
  // International numbers only (a leading +): national formats are too close to other numbers.
  {
    kind: 'phone',
    re: /(?<![\w+])\+[1-9][0-9]{0,2}(?:[ .-]?\(?[0-9]{1,4}\)?){2,5}(?![0-9])/g,
    valid: (m) => m.replace(/[^0-9]/g, '').length >= 8,
  },
];

/** A text with its redactions: the new text and how many values were replaced. */
export interface Redacted<T> {
  readonly value: T;
  readonly count: number;
}

/** True when `text` may hold a secret (contains one of the patterns' literal prefixes); false means it holds none. */
export function mayContainSecret(text: string): boolean {
  if (text.length < SHORTEST_SECRET) return false;
  return (
    scan(text, 'A', 0, lookA(text), REST_A) ||
    scan(text, 'K', 0, lookK(text), REST_K) ||
    scan(text, 'k', 0, lookk(text), REST_k) ||
    scan(text, 'J', 2, lookJ(text), REST_J) ||
    scan(text, '_', 0, lookUnderscore(text), REST_UNDERSCORE) ||
    scan(text, '-', 4, lookDash(text), REST_DASH)
  );
}

function applyPatterns(text: string, patterns: readonly Pattern[], counter: { n: number }): string {
  let out = text;
  for (const p of patterns) {
    p.re.lastIndex = 0;
    if (!p.re.test(out)) continue;
    p.re.lastIndex = 0;
    out = out.replace(p.re, (match: string, label: unknown, separator: unknown) => {
      if (p.valid && !p.valid(match)) return match;
      counter.n += 1;
      return p.keepLabel ? `${String(label)}${String(separator)}${redactionMarker(p.kind)}` : redactionMarker(p.kind);
    });
  }
  return out;
}

/**
 * A redactor for one set of options. Its methods are pure: they return the input itself (the
 * same string or object) when nothing was replaced, and a copy with the replacements otherwise.
 */
export class Redactor {
  constructor(readonly options: RedactionOptions) {}

  /** Whether this redactor replaces anything at all. */
  get active(): boolean {
    return this.options.secrets || this.options.pii;
  }

  /**
   * Whether `text` (for example a result's JSON text as the upstream sent it) may hold something
   * to redact; false means `redactValue` of what it parses to would change nothing.
   */
  mayMatch(text: string): boolean {
    if (this.options.pii) return true;
    return this.options.secrets && mayContainSecret(text);
  }

  /** Redacts one string. */
  redactText(text: string): Redacted<string> {
    const counter = { n: 0 };
    let out = text;
    if (this.options.secrets && mayContainSecret(out)) out = applyPatterns(out, SECRET_PATTERNS, counter);
    if (this.options.pii && out.length >= 6) out = applyPatterns(out, PII_PATTERNS, counter);
    return { value: counter.n ? out : text, count: counter.n };
  }

  /**
   * Redacts every string leaf of a JSON value (object keys are left alone). Containers are copied
   * only along the paths where something was replaced.
   */
  redactValue<T>(value: T): Redacted<T> {
    const counter = { n: 0 };
    const out = this.walk(value, counter, 0);
    return { value: out as T, count: counter.n };
  }

  private walk(value: unknown, counter: { n: number }, depth: number): unknown {
    if (typeof value === 'string') {
      if (value.length < 6) return value;
      const r = this.redactText(value);
      counter.n += r.count;
      return r.value;
    }
    if (typeof value !== 'object' || value === null || depth > 64) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const before = value[i] as unknown;
        const after = this.walk(before, counter, depth + 1);
        if (after !== before) (copy ??= value.slice())[i] = after;
      }
      return copy ?? value;
    }
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const before = (value as Record<string, unknown>)[key];
      const after = this.walk(before, counter, depth + 1);
      if (after !== before) (copy ??= { ...(value as Record<string, unknown>) })[key] = after;
    }
    return copy ?? value;
  }
}
