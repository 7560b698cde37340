/**
 * PostgreSQL `text` and `jsonb` cannot hold U+0000, which upstreams and callers can send (in a
 * description, an annotation, a tool name). Stores pass such strings through these helpers so a
 * write never fails on it: the character becomes U+FFFD (the replacement character).
 */

/** A `JSON.stringify` replacer that replaces U+0000 in every string value. */
export function withoutNul(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}

/** A nullable text value without U+0000. */
export function textWithoutNul(value: string | null): string | null {
  return value === null ? null : value.replaceAll('\0', '\uFFFD');
}

/**
 * `JSON.stringify` with U+0000 replaced in every string value. The plain (fast) serialisation
 * first: a replacer function takes V8 off its fast path for every value, and U+0000 is rare. Only
 * when the text holds the escape `\u0000` (a NUL, or a literal backslash followed by `u0000`) is
 * the value serialised again with the replacer.
 */
export function jsonWithoutNul(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u0000') ? JSON.stringify(value, withoutNul) : text;
}
