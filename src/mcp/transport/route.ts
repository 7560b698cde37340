/**
 * What an MCP route gives the transport, and what the transport records of a request: the types
 * at the front of the pipeline. A route (`/mcp/bundle/{bundle_key}`, `/mcp/gateway`) only turns a
 * request into a target (or refuses it); everything after that is the transport's (router.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpCaller, McpView } from '../context.js';

/**
 * What the access log line of one MCP request says: never the bundle key (the path), never
 * argument values. Filled in while the request is served; the app writes the line.
 */
export interface McpAccess {
  endpoint: 'bundle' | 'gateway';
  /** Bundle id, once the key resolved to a bundle. */
  bundle?: string;
  /** User id, once the gateway's credential resolved to a user. */
  user?: string;
  /** JSON-RPC method (`batch` for a batch), or `stream` / `end_session` / `info` for GET / DELETE / `/info`. */
  method?: string;
  /** The tool name the caller asked for (`tools/call`). */
  tool?: string;
  /** JSON-RPC error code of the answer, when it is an error (single requests). */
  rpcError?: number;
}

/** Longest method or tool name copied into an access record. */
export const MAX_LOGGED_NAME = 128;

/** What a route resolved a request to: what the caller sees, and who the caller is. */
export interface McpTarget {
  /** What sessions opened here serve (a bundle id, `gateway:<user id>`): announcements and endings go by scope. */
  readonly scope: string;
  /** The credential behind the request: a session answers only to the credential that opened it. */
  readonly credential: string;
  readonly caller: McpCaller;
  /** The view the request is served from, taken when it is dispatched (a cache lookup). */
  view(): McpView;
  /** Headers added to every answer (rate-limit headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A request a route refuses before any MCP rule applies: a JSON-RPC error with `id: null`. */
export interface McpRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type McpResolution = { readonly target: McpTarget } | { readonly refusal: McpRefusal };

/**
 * One MCP route on the transport: how a request becomes a target. Everything else (Origin/Host
 * guard, Accept and Content-Type, eras and sessions, 2026-07-28 headers, GET stream, DELETE,
 * cancellation, dispatch) is the transport's and the same on every route.
 */
export interface McpRoute {
  readonly endpoint: 'bundle' | 'gateway';
  /** Resolves the request (after the method and Origin checks; before anything is read). */
  resolve(req: IncomingMessage, access: McpAccess): McpResolution | Promise<McpResolution>;
  /** The answer to an HTTP method the path does not serve (`allow`: those it does), in the route's error shape. */
  methodNotAllowed(res: ServerResponse, requestId: string, allow?: string): void;
}
