/**
 * Calling a tool (or another method) of an upstream server: what the MCP endpoints hand the
 * pool (UpstreamCaller) and what comes back. The upstream side implements it; src/mcp consumes it.
 */

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
   * The Toolgate user the call acts for: an upstream behind per-user OAuth gets this user's token
   * and never anyone else's (a bundle key acts for the bundle's owner). Absent: no user.
   */
  actingUser?: string;
  /**
   * Run the tool call as a task on the upstream when it offers task-augmented `tools/call` (the
   * gateway's own task for the call waits on it); otherwise the call runs as an ordinary one.
   */
  asTask?: {
    readonly ttlMs: number;
    /**
     * Called once the call has become a task: when the upstream created its task, or at once when
     * the upstream runs the call as an ordinary one. What the upstream asks before then belongs to
     * the request that made the call, not to the task.
     */
    readonly started?: () => void;
  };
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
  /**
   * Who the caller is, when it declared a client feature an upstream may use during its calls
   * (sampling, elicitation, roots); undefined for a caller that declared none. An upstream whose
   * transport cannot tell its callers apart serves such a caller on a connection of its own
   * (see UpstreamPool). Read only on that path, never for a shared-connection call.
   */
  affinity?(): CallerAffinity | undefined;
}

/** Which caller a session-affine upstream connection belongs to, and what it declares upstream. */
export interface CallerAffinity {
  /** The caller: a stateful session, or a 2026-07-28 caller's route scope and credential. */
  readonly key: string;
  /** Whose share of the per-user bound the connection counts against (a user, or a key's credential). */
  readonly owner: string;
  /** The client features the caller declared, and that its connection declares upstream. */
  readonly capabilities: { readonly sampling?: object; readonly elicitation?: object; readonly roots?: object };
}

/** Whether a declared capability value is one (an object). */
const feature = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The client features a caller declared that an upstream may use, as a connection declares them; undefined when none. */
export function relayedCapabilities(declared: Record<string, unknown> | undefined): CallerAffinity['capabilities'] | undefined {
  if (!declared) return undefined;
  const { sampling, elicitation, roots } = declared;
  // A caller that declared none (the usual plain call) costs no allocation.
  if (!feature(sampling) && !feature(elicitation) && !feature(roots)) return undefined;
  return {
    ...(feature(sampling) ? { sampling } : {}),
    ...(feature(elicitation) ? { elicitation } : {}),
    ...(feature(roots) ? { roots } : {}),
  };
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

const isObjectValue = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A well-formed CallToolResult: content blocks that are objects, optional structured content and `isError`. */
export function isToolCallResult(r: unknown): r is ToolCallResult {
  return (
    isObjectValue(r) &&
    Array.isArray(r.content) &&
    r.content.every(isObjectValue) &&
    (r.structuredContent === undefined || isObjectValue(r.structuredContent)) &&
    (r.isError === undefined || typeof r.isError === 'boolean')
  );
}

/** Raised by the pool when an upstream cannot serve a call (down, timeout, protocol error). */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'timeout' | 'protocol' | 'cancelled' | 'rejected',
    message: string,
    /** JSON-RPC error the upstream answered with, when it did. */
    readonly rpcError?: { code: number; message: string; data?: unknown },
    /** The HTTP upstream refused the credential (401) or its scope (403), with its `WWW-Authenticate`. */
    readonly refusal?: { readonly status: number; readonly challenge: string },
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

/** The credential an upstream call behind OAuth carries, or why there is none and where the user connects. */
export type UpstreamCredential =
  | { readonly kind: 'token'; readonly accessToken: string; readonly fingerprint: string }
  | { readonly kind: 'needs_authorization'; readonly connectUrl: string; readonly reason: 'not_connected' | 'needs_consent' };

/** Where the pool gets the OAuth credentials of upstream calls (the token vault implements it). */
export interface UpstreamCredentials {
  /** The token of `userId` (null: the server's shared credential) for `serverId`, refreshed if due. */
  credential(serverId: string, userId: string | null): Promise<UpstreamCredential>;
  /**
   * The upstream refused the owner's token (`status` 401) or its scope (403 `insufficient_scope`,
   * `scopes` from the challenge): what the caller must do now, or undefined when asking again
   * cannot help (the scopes were already asked for: step-up is bounded).
   */
  refused?(
    serverId: string,
    userId: string | null,
    status: number,
    scopes: readonly string[],
  ): Promise<Extract<UpstreamCredential, { kind: 'needs_authorization' }> | undefined>;
}

/** JSON-RPC code of an MCP URL elicitation the caller must complete first (2025-11-25 `URLElicitationRequiredError`). */
export const URL_ELICITATION_REQUIRED = -32042;
/** JSON-RPC code of a call whose OAuth upstream the caller has not (or no longer) authorized; `data.authorization_url` says where. */
export const UPSTREAM_AUTHORIZATION_REQUIRED = -32006;
