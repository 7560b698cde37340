import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { DownstreamRpcError, type DownstreamPeer } from '../domain/upstream-call.js';
import { scopedStorage } from '../lib/scoped-storage.js';
import { withElicitationDefaults } from './elicitation-defaults.js';

/**
 * What the pool's client declares toward every upstream: it can relay sampling, elicitation and
 * roots to the downstream caller of a call. Whether that caller has them is decided per request
 * (a caller without one gets the answer a client without it gives: -32601).
 */
export const RELAY_CLIENT_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {}, roots: {} };

/**
 * One upstream call in flight on a connection, and the caller it runs for (if any). A transport
 * that knows which request a message answers (a Streamable HTTP upstream answers on the POST
 * stream of the request that caused it) hands the call back with the message as its tag.
 */
export interface InFlightCall {
  /** The caller; cleared when the call leaves the router (see `forget`). */
  peer: DownstreamPeer | undefined;
}

/** A call registered without an async context: its tag travels with its request (`release` when it settles). */
export interface TaggedCall extends InFlightCall {
  release(): void;
}

/** Log levels of `notifications/message` (MCP LoggingLevel). */
const LOG_LEVELS: ReadonlySet<unknown> = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/**
 * The call whose async context an upstream message arrives in (set around the upstream requests
 * sent through the SDK client). Enabled only while such a request is in flight: on Node 20 an
 * enabled AsyncLocalStorage turns on promise hooks for every promise of the process, a cost the
 * hot `tools/call` (tagged, never run in this context) does not pay.
 */
const currentCall = scopedStorage(new AsyncLocalStorage<InFlightCall>());

/** Runs `fn` outside any call's context (connections, reconnects, timers that outlive a call). */
export function outsideCalls<T>(fn: () => T): T {
  return currentCall.exit(fn);
}

/**
 * Routes what an upstream sends its client during a call (server-to-client requests,
 * `notifications/message`) to the downstream caller of that call, for one upstream connection
 * shared by every caller.
 *
 * Attribution, most exact first: (1) the tag of the request whose answer stream carried the
 * message (a direct call's POST, see `arrived`), or the async context the message arrives in (a
 * request sent through the SDK client: the transport delivers its POST stream in that request's
 * context); both are exact however many callers share the connection; (2) otherwise (a stdio or
 * upstream on the HTTP+SSE transport, or an HTTP upstream's standalone GET stream) the message is attributed only
 * when exactly one call is in flight on the connection. When neither holds, a request is refused
 * (the upstream sees an error) and a log message is dropped: a caller never receives another
 * caller's request.
 */
export class DownstreamRouter {
  private readonly calls = new Set<InFlightCall>();
  /** Upstream requests that arrived on a tagged stream, by their id, until their handler runs. */
  private readonly tagged = new Map<string | number, InFlightCall>();

  /** Runs one upstream request as a call of `peer` in its async context (undefined peer: no downstream caller, such as a catalog sync). */
  run<T>(peer: DownstreamPeer | undefined, fn: () => Promise<T>): Promise<T> {
    const call: InFlightCall = { peer };
    this.calls.add(call);
    return currentCall.run(call, fn).finally(() => this.forget(call));
  }

  /**
   * Registers a call whose request carries the returned object as its tag (the transport hands
   * it back with every message of that request's answer stream) instead of an async context.
   */
  track(peer: DownstreamPeer | undefined): TaggedCall {
    const call: TaggedCall = { peer, release: () => this.forget(call) };
    this.calls.add(call);
    return call;
  }

  /**
   * Sees a message a transport delivers with the tag of the request whose stream carried it,
   * before the SDK client does: an upstream request is noted for its handler; a well-formed
   * `notifications/message` is relayed to the call's caller at once and consumed (true).
   */
  arrived(message: Record<string, unknown>, tag: object): boolean {
    if (!this.calls.has(tag as InFlightCall)) return false;
    const call = tag as InFlightCall;
    const { id, method } = message;
    if (typeof method !== 'string') return false;
    if (id !== undefined) {
      if (typeof id === 'string' || typeof id === 'number') this.tagged.set(id, call);
      return false;
    }
    if (method !== 'notifications/message') return false;
    const params = message.params as Record<string, unknown> | undefined;
    if (!params || typeof params !== 'object' || Array.isArray(params) || !LOG_LEVELS.has(params.level) || !('data' in params))
      return false;
    if (params.logger !== undefined && typeof params.logger !== 'string') return false;
    call.peer?.log(params);
    return true;
  }

  /** Installs the server-to-client handlers on a new client of the connection (those of the features it declares). */
  install(client: Client, declared: ClientCapabilities = RELAY_CLIENT_CAPABILITIES): void {
    const relay =
      (capability: 'sampling' | 'elicitation' | 'roots') =>
      async (request: { method: string; params?: Record<string, unknown> }, extra: RequestHandlerExtra<never, never>) => {
        const call = this.attribute(extra.requestId);
        if (call === 'ambiguous')
          throw new McpError(ErrorCode.InternalError, `The gateway cannot tell which of its callers ${request.method} is meant for`);
        const peer = call?.peer;
        if (!peer || !peer.has(capability)) throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
        try {
          const answer = await peer.request(request.method, request.params, extra.signal);
          return capability === 'elicitation' ? withElicitationDefaults(request.params, answer) : answer;
        } catch (err) {
          if (err instanceof DownstreamRpcError) throw new McpError(err.code, err.message, err.data);
          throw err;
        }
      };
    // The SDK validates these requests against its schemas before the handler runs, and what the
    // caller answers before it goes back upstream.
    // (The SDK refuses a handler for a feature the client does not declare; the upstream then gets -32601.)
    if (declared.sampling) client.setRequestHandler(CreateMessageRequestSchema, relay('sampling') as never);
    if (declared.elicitation) client.setRequestHandler(ElicitRequestSchema, relay('elicitation') as never);
    if (declared.roots) client.setRequestHandler(ListRootsRequestSchema, relay('roots') as never);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const call = this.attribute();
      if (call && call !== 'ambiguous') call.peer?.log(n.params as Record<string, unknown>);
    });
  }

  private forget(call: InFlightCall): void {
    this.calls.delete(call);
    // A settled call lets go of its caller (the request's response channel, session and all they
    // reach). A Set that lives as long as the connection keeps its hash tables in the old
    // generation, and a table it grew or shrank out of stays there, entries and all, until the
    // next full collection: every young-generation collection until then would copy and promote
    // a finished request through that stale entry (measured: most of the bytes a call promoted).
    call.peer = undefined;
    if (this.tagged.size === 0) return;
    for (const [id, c] of this.tagged) if (c === call) this.tagged.delete(id);
  }

  /** The call a message arriving now belongs to: its tag or async context, else the only call in flight. */
  private attribute(upstreamRequestId?: string | number): InFlightCall | 'ambiguous' | undefined {
    if (upstreamRequestId !== undefined) {
      const tagged = this.tagged.get(upstreamRequestId);
      if (tagged) {
        this.tagged.delete(upstreamRequestId);
        if (this.calls.has(tagged)) return tagged;
      }
    }
    const call = currentCall.getStore();
    if (call && this.calls.has(call)) return call;
    if (this.calls.size === 1) return this.calls.values().next().value;
    return this.calls.size === 0 ? undefined : 'ambiguous';
  }
}
