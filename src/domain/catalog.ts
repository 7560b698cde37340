/**
 * The seam between the upstream side (server registry, catalog sync: src/services/servers-service.ts,
 * catalog-sync.ts, and the pool in src/upstream/) and the downstream side (bundles, the MCP endpoints). The upstream side
 * implements these interfaces; bundles and the MCP endpoints only consume them, from memory,
 * so the hot path never waits on the database.
 */

/** JSON Schema object as MCP carries it (`inputSchema`, `outputSchema`). */
export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** MCP tool annotations (hints; untrusted unless the server is trusted). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** One tool of one upstream server, as the catalog holds it. */
export interface CatalogTool {
  /** Stable id of server + tool name (uuid), used by bundles and tool selection. */
  readonly id: string;
  readonly serverId: string;
  readonly serverName: string;
  /** The tool's real name upstream. */
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject | null;
  readonly annotations: ToolAnnotations | null;
  /** `_meta` of the upstream tool definition, passed through. */
  readonly meta: Record<string, unknown> | null;
  /** `execution` of the upstream tool definition (`taskSupport`: whether it may run as a task). */
  readonly execution?: Record<string, unknown> | null;
  /** Admin's tool selection: disabled tools are served nowhere. */
  readonly enabled: boolean;
  /**
   * False once the tool disappeared upstream (kept so bundles can show it), and while its server
   * is disabled. Whether the server is connected right now is `serverState(id).connected`.
   */
  readonly available: boolean;
  /**
   * True for a script tool of an attached skill: it runs in the gateway's sandbox, so it is
   * served while its server is enabled, whether or not the upstream is connected.
   */
  readonly script?: boolean;
}

export interface CatalogResource {
  readonly serverId: string;
  readonly uri: string;
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly mimeType: string | null;
  readonly size: number | null;
  readonly annotations: Record<string, unknown> | null;
}

export interface CatalogResourceTemplate {
  readonly serverId: string;
  readonly uriTemplate: string;
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly mimeType: string | null;
}

export interface CatalogPrompt {
  readonly serverId: string;
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly arguments: readonly { name: string; description?: string; required?: boolean }[];
}

/** Read access to the in-memory catalog. Lookups are synchronous: no I/O on the hot path. */
export interface CatalogView {
  /** Increments on every change; lets consumers cache derived answers (pre-serialised lists). */
  readonly version: number;
  tool(id: string): CatalogTool | undefined;
  toolsOfServer(serverId: string): readonly CatalogTool[];
  resourcesOfServer(serverId: string): readonly CatalogResource[];
  resourceTemplatesOfServer(serverId: string): readonly CatalogResourceTemplate[];
  promptsOfServer(serverId: string): readonly CatalogPrompt[];
  /** Whether the server is registered, enabled and currently connected. */
  serverState(serverId: string): { name: string; enabled: boolean; connected: boolean } | undefined;
  /** Called after any change, with the ids of the servers whose catalog changed. */
  onChange(listener: (serverIds: readonly string[]) => void): () => void;
}

/** Progress reported by an upstream during a call. */
export interface UpstreamProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What a call needs of its caller's cancellation: whether and why it was cancelled, and a
 * listener. An AbortSignal is one; the MCP endpoints pass a lighter one per request (an
 * AbortController and its EventTarget per request cost about 3 % of the hot path's CPU), which
 * makes an AbortSignal only when something asks for one (`abortSignalOf`).
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** An AbortSignal that aborts with `signal` (`signal` itself when it is one), for APIs that need one. */
export function abortSignalOf(signal: CallSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const lazy = (signal as { readonly abortSignal?: AbortSignal }).abortSignal;
  if (lazy) return lazy;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller.signal;
}

export interface UpstreamCallOptions {
  /** Aborting cancels the upstream request (`notifications/cancelled` is sent upstream). */
  signal?: CallSignal;
  /** Overrides the server's configured per-call timeout. */
  timeoutMs?: number;
  /**
   * An upper bound on the call's timeout (the caller's backstop): the call times out at the earlier
   * of this and its own timeout, and is then cancelled upstream like any timed-out call.
   */
  maxTimeoutMs?: number;
  /** Receives upstream progress notifications for this call. */
  onProgress?: (progress: UpstreamProgress) => void;
  /**
   * The downstream client this call runs for: server-to-client requests (sampling, elicitation,
   * roots) and log messages the upstream sends during the call are relayed to it.
   */
  downstream?: DownstreamPeer;
  /**
   * Run the tool call as a task on the upstream when it offers task-augmented `tools/call` (the
   * gateway's own task for the call waits on it); otherwise the call runs as an ordinary one.
   */
  asTask?: { readonly ttlMs: number };
}

/**
 * The downstream client behind one upstream call, as the pool sees it: what it declared, and how
 * to reach it while the call runs. Implemented by the MCP endpoints.
 */
export interface DownstreamPeer {
  /** Whether the client declared the capability a server-to-client method needs (`sampling`, `elicitation`, `roots`). */
  has(capability: 'sampling' | 'elicitation' | 'roots'): boolean;
  /**
   * Sends a server-to-client request to the client and resolves with its result; rejects with a
   * DownstreamRpcError when the client answers an error, or when it cannot be reached.
   */
  request(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Relays an upstream `notifications/message` (the peer applies the client's log level). */
  log(params: Record<string, unknown>): void;
}

/** A JSON-RPC error answer of a downstream client (or the gateway's own refusal on its behalf). */
export class DownstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'DownstreamRpcError';
  }
}

/** A `completion/complete` reference, in the upstream's names. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** Result of `tools/call` (MCP CallToolResult): content blocks, structured content, isError. */
export interface ToolCallResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * Where a result object keeps the JSON text it arrived as (a non-enumerable property, so a copy or
 * a spread of the result never carries it). An MCP endpoint answering with the same, unchanged
 * object splices this text in instead of serialising the object again (a passed-through result
 * costs the gateway no serialisation).
 */
export const RESULT_TEXT: unique symbol = Symbol('toolgate.resultText');

/** Marks `result` as unchanged from `text`, the exact JSON text of it the upstream sent. */
export function withResultText<T extends object>(result: T, text: string): T {
  Object.defineProperty(result, RESULT_TEXT, { value: text, enumerable: false });
  return result;
}

/** The JSON text an unchanged upstream result arrived as, if it was kept. */
export function resultText(result: unknown): string | undefined {
  return typeof result === 'object' && result !== null ? ((result as { [RESULT_TEXT]?: string })[RESULT_TEXT] ?? undefined) : undefined;
}

/** Raised by the pool when an upstream cannot serve a call (down, timeout, protocol error). */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'timeout' | 'protocol' | 'cancelled' | 'rejected',
    message: string,
    /** JSON-RPC error the upstream answered with, when it did. */
    readonly rpcError?: { code: number; message: string; data?: unknown },
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** Calls into upstream servers through the shared pool (one client per server). */
export interface UpstreamCaller {
  callTool(serverId: string, toolName: string, args: Record<string, unknown>, options?: UpstreamCallOptions): Promise<ToolCallResult>;
  readResource(serverId: string, uri: string, options?: UpstreamCallOptions): Promise<{ contents: unknown[]; [key: string]: unknown }>;
  getPrompt(
    serverId: string,
    name: string,
    args: Record<string, string>,
    options?: UpstreamCallOptions,
  ): Promise<{ messages: unknown[]; description?: string; [key: string]: unknown }>;
  /** `completion/complete` on the upstream (absent: completion is not offered). */
  complete?(
    serverId: string,
    params: { ref: CompletionRef; argument: { name: string; value: string }; context?: Record<string, unknown> },
    options?: UpstreamCallOptions,
  ): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean }; [key: string]: unknown }>;
  /** `resources/subscribe` on the upstream (absent: subscriptions are not offered). */
  subscribeResource?(serverId: string, uri: string, options?: UpstreamCallOptions): Promise<void>;
  /** `resources/unsubscribe` on the upstream. */
  unsubscribeResource?(serverId: string, uri: string, options?: UpstreamCallOptions): Promise<void>;
  /** Calls `listener` for every upstream `notifications/resources/updated`; returns the unsubscribe. */
  onResourceUpdated?(listener: (serverId: string, uri: string) => void): () => void;
  /** Calls `listener` whenever an upstream connection (re)initialises; returns the unsubscribe. */
  onUpstreamConnected?(listener: (serverId: string) => void): () => void;
}
