/**
 * SEP-2243 (MCP 2026-07-28) custom headers: a tool's input property annotated with
 * `x-mcp-header: Name` is mirrored into an `Mcp-Param-Name` header of every `tools/call` of that
 * tool, so that HTTP infrastructure can route on it without reading the body. A tool whose
 * annotations break the rules (empty or non-token name, a name used twice ignoring case, on a type
 * other than string, integer or boolean) must not be used at all.
 */

/** The property → header-name pairs of one tool's `x-mcp-header` annotations. */
export type ParamHeaders = ReadonlyArray<readonly [property: string, header: string]>;

/** An HTTP token (RFC 9110 `tchar`): visible ASCII without separators. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * The `x-mcp-header` annotations of a tool's input schema: `[]` when it has none, `undefined` when
 * one of them is invalid (the tool is then to be left out).
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeaders | undefined {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return [];
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const [property, schema] of Object.entries(inputSchema.properties)) {
    if (!isObject(schema) || !('x-mcp-header' in schema)) continue;
    const name = schema['x-mcp-header'];
    if (typeof name !== 'string' || !TOKEN.test(name)) return undefined;
    if (typeof schema.type !== 'string' || !HEADER_TYPES.has(schema.type)) return undefined;
    const key = name.toLowerCase();
    if (seen.has(key)) return undefined;
    seen.add(key);
    out.push([property, name]);
  }
  return out;
}

/**
 * The `Mcp-Param-*` headers of one call: each annotated argument that is a string, number or
 * boolean (null and absent ones are omitted). A string that is not plain visible ASCII, or that
 * begins or ends with whitespace, goes as `=?base64?…?=` of its UTF-8 bytes.
 */
export function paramHeaderValues(headers: ParamHeaders, args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(args)) return out;
  for (const [property, name] of headers) {
    const value = args[property];
    let text: string;
    if (typeof value === 'string') text = encodeString(value);
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else continue;
    out[`mcp-param-${name.toLowerCase()}`] = text;
  }
  return out;
}

/** A header value as SEP-2243 writes it: plain visible ASCII as is, anything else as `=?base64?…?=` of its UTF-8 bytes. */
export function encodeHeaderValue(value: string): string {
  return encodeString(value);
}

function encodeString(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && value === value.trim();
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
