/**
 * Finds where a member of a JSON object sits in its text, without parsing it: the span of the
 * value of top-level member `name` in `text` (a JSON object), or undefined when it has none. The
 * text must be valid JSON (the caller has parsed it already); nothing is validated here. Strings
 * are skipped with `indexOf`, nested values by depth, so the cost is one pass over the text up to
 * the member.
 *
 * Used to pass an upstream's `result` on exactly as the upstream wrote it, which saves the gateway
 * a serialisation per call: the answer to the caller is the result's text spliced into a new
 * envelope, never re-serialised.
 */
export function memberSpan(text: string, name: string): [start: number, end: number] | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i += 1;
  for (;;) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== QUOTE) return undefined; // `}`: the object ends without the member
    const keyEnd = stringEnd(text, i);
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipSpace(text, keyEnd);
    i = skipSpace(text, i + 1); // the colon
    const start = i;
    i = valueEnd(text, i);
    if (key === name || (key.includes('\\') && JSON.parse(`"${key}"`) === name)) return [start, i];
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i += 1;
  }
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i += 1;
  }
}

/** The index after the closing quote of the string opening at `i`. */
function stringEnd(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q === -1) return text.length;
    let slashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === BACKSLASH; k -= 1) slashes += 1;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let k = i; k < text.length; k += 1) {
      const d = text.charCodeAt(k);
      if (d === QUOTE) k = stringEnd(text, k) - 1;
      else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth += 1;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return k + 1;
      }
    }
    return text.length;
  }
  // A number, true, false or null: up to the next delimiter.
  let k = i;
  for (; k < text.length; k += 1) {
    const d = text.charCodeAt(k);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
  }
  return k;
}
