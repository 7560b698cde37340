import { JSONRPCErrorException } from 'json-rpc-2.0';
import { resultText } from '../domain/result-text.js';

/** Stateful (initialize + Mcp-Session-Id) protocol versions, oldest first. */
export const STATEFUL_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** The stateless revision: per-request `_meta`, no sessions. */
export const STATELESS_VERSION = '2026-07-28';
/** Every version served, oldest first. */
export const SUPPORTED_VERSIONS: readonly string[] = [...STATEFUL_VERSIONS, STATELESS_VERSION];
export const LATEST_STATEFUL_VERSION = '2025-11-25';
/** Versions `initialize` accepts on the HTTP+SSE transport (2024-11-05): the one it was made for, too. */
export const SSE_TRANSPORT_VERSIONS: readonly string[] = ['2024-11-05', ...STATEFUL_VERSIONS];

/** Keys of the 2026-07-28 per-request `_meta`. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** JSON-RPC error codes of the MCP endpoints (openapi.yaml, tag `mcp`). */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UpstreamUnavailable: -32000,
  UpstreamTimeout: -32001,
  ResourceNotFound: -32002,
  RateLimited: -32003,
  Forbidden: -32004,
  SessionNotFound: -32005,
  HeaderMismatch: -32020,
  MissingClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  RequestCancelled: -32800,
} as const;

/** Which rules a request follows: stateful sessions, or the stateless 2026-07-28 revision. */
export type Era = 'stateful' | 'stateless';

/** A JSON-RPC error raised inside a method; becomes the error member of the response. */
export function rpcError(code: number, message: string, data?: unknown): JSONRPCErrorException {
  return new JSONRPCErrorException(message, code, data);
}

/** A result already serialised to JSON (the cached `tools/list` pages): spliced in as-is. */
export class RawResult {
  private encoded: Buffer | undefined;

  constructor(readonly json: string) {}

  /** The JSON as UTF-8, encoded on first use and then reused by every response carrying this result. */
  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(this.json, 'utf8'));
  }
}

/**
 * A serialised response around a {@link RawResult}: the short head (`{"jsonrpc":"2.0","id":…,"result":`),
 * the result's cached bytes and `}`. A plain JSON answer writes the three as they are (the page is
 * neither copied nor encoded again); where text is needed (a batch, an SSE event) it converts to
 * the same JSON with `toString()`.
 */
export class SplicedResponse {
  constructor(
    readonly head: string,
    readonly result: RawResult,
  ) {}

  toString(): string {
    return `${this.head}${this.result.json}}`;
  }
}

/** A JSON-RPC message as received: only the members we look at are typed. */
export interface RpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

export type MessageKind = 'request' | 'notification' | 'response' | 'invalid';

/** Classifies one message of a body by the JSON-RPC 2.0 rules. */
export function messageKind(m: unknown): MessageKind {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return 'invalid';
  const msg = m as RpcMessage;
  if (msg.jsonrpc !== '2.0') return 'invalid';
  const validId = typeof msg.id === 'string' || (typeof msg.id === 'number' && Number.isFinite(msg.id));
  if (typeof msg.method === 'string') {
    if (msg.params !== undefined && (typeof msg.params !== 'object' || msg.params === null)) return 'invalid';
    if (!('id' in msg)) return 'notification';
    return validId ? 'request' : 'invalid';
  }
  if ('result' in msg !== 'error' in msg && (validId || msg.id === null)) return 'response';
  return 'invalid';
}

/** Serialises a JSON-RPC response, splicing in pre-serialised results. */
export function serializeResponse(response: { jsonrpc?: string; id?: unknown; result?: unknown; error?: unknown }): string {
  return String(serializeAnswer(response));
}

/**
 * Serialises a JSON-RPC response; one with a pre-serialised result stays spliced ({@link SplicedResponse}),
 * and an upstream's result that nothing changed is spliced in as the text it arrived as.
 */
export function serializeAnswer(response: { jsonrpc?: string; id?: unknown; result?: unknown; error?: unknown }): string | SplicedResponse {
  if (response.result instanceof RawResult)
    return new SplicedResponse(`{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":`, response.result);
  const text = response.error === undefined ? resultText(response.result) : undefined;
  if (text !== undefined) return `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":${text}}`;
  return JSON.stringify(response);
}

/** A transport-level JSON-RPC error body (`id: null` unless the request's id is known). */
export function errorBody(code: number, message: string, data?: unknown, id: unknown = null): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
}
