/**
 * The 2026-07-28 rules a stateless request must meet before it is dispatched (stateless.ts calls
 * them after the body is read): the per-request `_meta` (protocol version, client capabilities),
 * and the headers that repeat the body for intermediaries that do not parse it: `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers of a tool's arguments.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  RpcCode,
  STATELESS_VERSION,
  SUPPORTED_VERSIONS,
  type RpcMessage,
} from '../protocol.js';
import type { McpTarget } from './route.js';
import { header, sendRpcError } from './responses.js';

/** The body field a 2026-07-28 request's `Mcp-Name` header mirrors (SEP-2243; the tasks methods: SEP-2663). */
const NAMED: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The protocol version a message's `_meta` names (a 2026-07-28 marker), if any. */
export function statelessVersionOf(msg: RpcMessage): unknown {
  const meta = (msg.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta && typeof meta === 'object' ? meta[META_PROTOCOL_VERSION] : undefined;
}

/**
 * Checks a 2026-07-28 request's `_meta` and headers against its body. Returns the protocol version
 * when they agree; otherwise answers the error and returns undefined. Malformed per-request
 * metadata is invalid params; disagreeing headers are a mismatch (-32020); only a consistent but
 * unsupported version is -32022.
 */
export function checkStatelessRequest(req: IncomingMessage, res: ServerResponse, target: McpTarget, msg: RpcMessage): string | undefined {
  const meta = (msg.params as { _meta?: unknown } | undefined)?._meta;
  const version = statelessVersionOf(msg);
  const headerVersion = header(req, 'mcp-protocol-version');
  const mismatch = (message: string) => void sendRpcError(res, 400, RpcCode.HeaderMismatch, message, { id: msg.id });
  const invalid = (message: string) => void sendRpcError(res, 400, RpcCode.InvalidParams, message, { id: msg.id });
  if (!meta || typeof meta !== 'object') return invalid('Invalid params: _meta is required in protocol version 2026-07-28');
  if (typeof version !== 'string') return invalid(`Invalid params: _meta.${META_PROTOCOL_VERSION} is required`);
  const capabilities = (meta as Record<string, unknown>)[META_CLIENT_CAPABILITIES];
  if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities))
    return invalid(`Invalid params: _meta.${META_CLIENT_CAPABILITIES} is required`);
  if (headerVersion !== undefined && headerVersion !== version)
    return mismatch('Header mismatch: MCP-Protocol-Version must equal the _meta protocol version');
  if (version !== STATELESS_VERSION) {
    sendRpcError(res, 400, RpcCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      id: msg.id,
      data: { supported: SUPPORTED_VERSIONS, requested: version },
    });
    return undefined;
  }
  if (headerVersion !== version) return mismatch('Header mismatch: MCP-Protocol-Version must equal the _meta protocol version');
  const method = msg.method as string;
  if (header(req, 'mcp-method') !== method) return mismatch('Header mismatch: Mcp-Method must equal the request method');
  const field = NAMED[method];
  if (field) {
    const name = (msg.params as Record<string, unknown> | undefined)?.[field];
    if (header(req, 'mcp-name') !== name) return mismatch(`Header mismatch: Mcp-Name must equal params.${field}`);
  }
  if (method === 'tools/call') {
    const params = msg.params as Record<string, unknown>;
    const tool = typeof params.name === 'string' ? target.view().byName.get(params.name) : undefined;
    const wrong = tool ? paramHeaderMismatch(req, tool.wire.inputSchema, params.arguments) : undefined;
    if (wrong) return mismatch(wrong);
  }
  return version;
}

/*
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
    const value = given[param];
    const sent = Array.isArray(raw) ? raw[0] : raw;
    if (sent === undefined) {
      if (value !== undefined && value !== null) return `Header mismatch: Mcp-Param-${name} is required when arguments.${param} is set`;
      continue;
    }
    const decoded = decodeParamHeader(sent);
    if (decoded === undefined) return `Header mismatch: Mcp-Param-${name} is not valid Base64`;
    if (value === undefined || value === null) return `Header mismatch: Mcp-Param-${name} is set but arguments.${param} is not`;
    if (decoded !== asHeaderText(value)) return `Header mismatch: Mcp-Param-${name} must equal arguments.${param}`;
  }
  return undefined;
}
