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
import { DownstreamRpcError, type DownstreamPeer } from '../domain/catalog.js';

/**
 * What the pool's client declares toward every upstream: it can relay sampling, elicitation and
 * roots to the downstream caller of a call. Whether that caller has them is decided per request
 * (a caller without one gets the answer a client without it gives: -32601).
 */
export const RELAY_CLIENT_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {}, roots: {} };

/** One upstream call in flight on a connection, and the caller it runs for (if any). */
interface InFlightCall {
  readonly peer: DownstreamPeer | undefined;
}

/** The call whose async context an upstream message arrives in (set around every upstream request). */
const currentCall = new AsyncLocalStorage<InFlightCall>();

/** Runs `fn` outside any call's context (connections, reconnects, timers that outlive a call). */
export function outsideCalls<T>(fn: () => T): T {
  return currentCall.exit(fn);
}

/**
 * Routes what an upstream sends its client during a call (server-to-client requests,
 * `notifications/message`) to the downstream caller of that call, for one upstream connection
 * shared by every caller.
 *
 * Attribution, most exact first: (1) the async context the message arrives in: a Streamable
 * HTTP upstream answers on the POST stream of the request that caused it, and the SDK reads that
 * stream in the context of our request, so this is exact however many callers share the
 * connection; (2) otherwise (a stdio or legacy SSE upstream, or an HTTP upstream's standalone GET
 * stream) the message is attributed only when exactly one call is in flight on the connection.
 * When neither holds, a request is refused (the upstream sees an error) and a log message is
 * dropped: a caller never receives another caller's request.
 */
export class DownstreamRouter {
  private readonly calls = new Set<InFlightCall>();

  /** Runs one upstream request as a call of `peer` (undefined: a call with no downstream caller, such as a catalog sync). */
  run<T>(peer: DownstreamPeer | undefined, fn: () => Promise<T>): Promise<T> {
    const call: InFlightCall = { peer };
    this.calls.add(call);
    return currentCall.run(call, fn).finally(() => this.calls.delete(call));
  }

  /** Installs the server-to-client handlers on a new client of the connection. */
  install(client: Client): void {
    const relay =
      (capability: 'sampling' | 'elicitation' | 'roots') =>
      async (request: { method: string; params?: Record<string, unknown> }, extra: RequestHandlerExtra<never, never>) => {
        const call = this.attribute();
        if (call === 'ambiguous')
          throw new McpError(ErrorCode.InternalError, `The gateway cannot tell which of its callers ${request.method} is meant for`);
        const peer = call?.peer;
        if (!peer || !peer.has(capability)) throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
        try {
          return await peer.request(request.method, request.params, extra.signal);
        } catch (err) {
          if (err instanceof DownstreamRpcError) throw new McpError(err.code, err.message, err.data);
          throw err;
        }
      };
    // The SDK validates these requests against its schemas before the handler runs, and what the
    // caller answers before it goes back upstream.
    client.setRequestHandler(CreateMessageRequestSchema, relay('sampling') as never);
    client.setRequestHandler(ElicitRequestSchema, relay('elicitation') as never);
    client.setRequestHandler(ListRootsRequestSchema, relay('roots') as never);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const call = this.attribute();
      if (call && call !== 'ambiguous') call.peer?.log(n.params as Record<string, unknown>);
    });
  }

  /** The call a message arriving now belongs to: its async context, else the only call in flight. */
  private attribute(): InFlightCall | 'ambiguous' | undefined {
    const call = currentCall.getStore();
    if (call && this.calls.has(call)) return call;
    if (this.calls.size === 1) return this.calls.values().next().value;
    return this.calls.size === 0 ? undefined : 'ambiguous';
  }
}
