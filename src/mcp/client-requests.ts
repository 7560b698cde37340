import { DownstreamRpcError, relayedCapabilities, type CallerAffinity, type DownstreamPeer } from '../domain/upstream-call.js';
import type { Era, RpcMessage } from './protocol.js';
import { RpcCode } from './protocol.js';
import type { Session } from './sessions.js';

/** MCP log levels, least severe first (RFC 5424 names). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Key of the 2026-07-28 per-request log level (`_meta`): without it a request gets no log messages. */
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** Whether a message of `level` passes a `threshold` (unknown levels pass: the upstream chose them). */
function passes(level: unknown, threshold: LogLevel): boolean {
  const at = LOG_LEVELS.indexOf(level as LogLevel);
  return at < 0 || at >= LOG_LEVELS.indexOf(threshold);
}

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(err: DownstreamRpcError): void;
}

/** What one downstream request offers its peer: how to write to its response stream, and what the caller declared. */
export interface PeerRequest {
  readonly era: Era;
  readonly session: Session | null;
  /** Capabilities of a 2026-07-28 request's `_meta` (stateful: the session's). */
  readonly capabilities: Record<string, unknown> | undefined;
  /** The 2026-07-28 request's `_meta` log level, when it set one. */
  readonly logLevel: LogLevel | undefined;
  /** Whose share of the per-user bound of session-affine upstream connections the caller uses. */
  readonly owner: string;
  /** Writes a message related to the request on its response stream (switching it to SSE). */
  write(message: Record<string, unknown>): void;
}

/**
 * Server-to-client requests the gateway relays from upstreams to its stateful sessions: each goes
 * out on the response stream of the downstream request whose upstream call caused it (so it is
 * related to that request), and the client's answer comes back in a later POST of the session
 * as a JSON-RPC response, matched here by id.
 */
export class ClientRequests {
  private readonly pending = new Map<string, Map<string, Pending>>();
  private seq = 0;

  /** The peer the pool relays to while `req`'s upstream call runs (its methods on a prototype: no closures per request). */
  peer(req: PeerRequest): DownstreamPeer {
    return new RequestPeer(this, req);
  }

  /** Hands a client's JSON-RPC response to the relayed request it answers; false when none waits for it. */
  settle(session: Session, msg: RpcMessage): boolean {
    const waiting = this.pending.get(session.id);
    const key = JSON.stringify(msg.id);
    const entry = waiting?.get(key);
    if (!waiting || !entry) return false;
    waiting.delete(key);
    if (waiting.size === 0) this.pending.delete(session.id);
    if (msg.error !== undefined) {
      const e = (isObject(msg.error) ? msg.error : {}) as { code?: unknown; message?: unknown; data?: unknown };
      entry.reject(
        new DownstreamRpcError(
          typeof e.code === 'number' && Number.isInteger(e.code) ? e.code : RpcCode.InternalError,
          typeof e.message === 'string' ? e.message : 'The client answered an error',
          e.data,
        ),
      );
    } else {
      entry.resolve(isObject(msg.result) ? msg.result : {});
    }
    return true;
  }

  /** Fails every relayed request of an ended session. */
  endSession(sessionId: string): void {
    const waiting = this.pending.get(sessionId);
    if (!waiting) return;
    this.pending.delete(sessionId);
    for (const p of waiting.values()) p.reject(new DownstreamRpcError(RpcCode.InternalError, 'The client session ended'));
  }

  /** Sends a server-to-client request on `req`'s response stream and waits for the session's answer. */
  send(
    req: PeerRequest,
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const session = req.session;
    if (req.era !== 'stateful' || !session) return Promise.reject(new DownstreamRpcError(RpcCode.MethodNotFound, 'Method not found'));
    this.seq += 1;
    const id = `tg-${this.seq}`;
    const key = JSON.stringify(id);
    let waiting = this.pending.get(session.id);
    if (!waiting) this.pending.set(session.id, (waiting = new Map()));
    const table = waiting;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const forget = () => {
        table.delete(key);
        if (table.size === 0 && this.pending.get(session.id) === table) this.pending.delete(session.id);
      };
      const onAbort = () => {
        forget();
        // The upstream gave up (cancelled or timed out): the client may stop asking its user.
        req.write({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'The server cancelled the request' },
        });
        reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'Request cancelled'));
      };
      if (signal.aborted) {
        reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'Request cancelled'));
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      table.set(key, {
        resolve: (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      req.write({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The caller of one downstream request as the pool relays to it. */
class RequestPeer implements DownstreamPeer {
  constructor(
    private readonly requests: ClientRequests,
    private readonly req: PeerRequest,
  ) {}

  // A 2026-07-28 caller answers through input-required results, which only tools/call,
  // prompts/get and resources/read carry (src/mcp/input-required.ts serves those); during any
  // other of its requests it is treated as lacking the capability.
  has(capability: 'sampling' | 'elicitation' | 'roots'): boolean {
    const { req } = this;
    return req.era === 'stateful' && req.session !== null && isObject(req.session.clientCapabilities?.[capability]);
  }

  request(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    return this.requests.send(this.req, method, params, signal);
  }

  log(params: Record<string, unknown>): void {
    const { req } = this;
    const threshold = req.era === 'stateful' ? (req.session?.logLevel ?? 'debug') : req.logLevel;
    if (threshold === undefined || !passes(params.level, threshold)) return;
    req.write({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  /** A stateful session that declared sampling, elicitation or roots: the session is the caller. */
  affinity(): CallerAffinity | undefined {
    const { req } = this;
    if (req.era !== 'stateful' || req.session === null) return undefined;
    const capabilities = relayedCapabilities(req.session.clientCapabilities);
    return capabilities ? { key: `session ${req.session.id}`, owner: req.owner, capabilities } : undefined;
  }
}
