import type { IncomingMessage } from 'node:http';

/**
 * `Mcp-Param-*` headers (SEP-2243, MCP 2026-07-28): a tool argument whose input-schema property
 * carries `"x-mcp-header": "<Name>"` is mirrored by the client in the header `Mcp-Param-<Name>`, so
 * routing intermediaries can read it without parsing the body. A header value is taken literally
 * unless it is wrapped as `=?base64?<Base64>?=`, which must be valid Base64 (alphabet and padding).
 */

const WRAPPED = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The header a property is mirrored in, when it declares one. */
function headerOf(property: unknown): string | undefined {
  if (typeof property !== 'object' || property === null) return undefined;
  const name = (property as Record<string, unknown>)['x-mcp-header'];
  return typeof name === 'string' && name.length > 0 ? name : undefined;
}

/** A header's value as the client meant it; undefined when its Base64 wrapping is invalid. */
export function decodeParamHeader(value: string): string | undefined {
  const wrapped = WRAPPED.exec(value);
  if (!wrapped) return value;
  const encoded = wrapped[1]!;
  if (!BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** How an argument appears in a header: strings as they are, numbers and booleans as JSON. */
function asHeaderText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments, for the properties of
 * the tool's input schema that declare `x-mcp-header`. Returns what is wrong (for a -32020 header
 * mismatch), or undefined when they agree: a header must be present exactly when the argument is,
 * decode validly, and equal the argument.
 */
export function paramHeaderMismatch(req: IncomingMessage, inputSchema: unknown, args: unknown): string | undefined {
  const properties = (inputSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const given = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  for (const [param, property] of Object.entries(properties)) {
    const name = headerOf(property);
    if (!name) continue;
    const raw = req.headers[`mcp-param-${name.toLowerCase()}`];
    const header = Array.isArray(raw) ? raw[0] : raw;
    const value = given[param];
    if (header === undefined) {
      if (value !== undefined && value !== null) return `Header mismatch: Mcp-Param-${name} is required when arguments.${param} is set`;
      continue;
    }
    const decoded = decodeParamHeader(header);
    if (decoded === undefined) return `Header mismatch: Mcp-Param-${name} is not valid Base64`;
    if (value === undefined || value === null) return `Header mismatch: Mcp-Param-${name} is set but arguments.${param} is not`;
    if (decoded !== asHeaderText(value)) return `Header mismatch: Mcp-Param-${name} must equal arguments.${param}`;
  }
  return undefined;
}
