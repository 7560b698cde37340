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
