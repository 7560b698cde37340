import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallSignal } from '../domain/upstream-call.js';
import type { DeadlineWheel } from '../lib/deadline-wheel.js';
import type { RawMessageSource } from './raw-message.js';

/** The answer to a direct request: the parsed message, and its text when the transport kept it. */
export interface DirectReply {
  readonly message: { result?: unknown; error?: unknown; [key: string]: unknown };
  /** The message exactly as the upstream wrote it (absent from transports without the raw seam). */
  readonly text: string | undefined;
}

/**
 * Options of a direct request: the SDK's, and the tag of the call it belongs to (handed back by
 * the transport with whatever the upstream sends on the request's own answer stream).
 */
export interface DirectRequestOptions {
  readonly timeout?: number;
  /** Cancels the request (`notifications/cancelled` goes upstream). */
  readonly signal?: CallSignal;
  readonly tag?: object;
}

/** Send options of a transport that can tag a request's answer stream (`RawMessageSource`). */
export type TaggedSendOptions = TransportSendOptions & { readonly tag?: object };

/** One direct request waiting for its answer (both emptied once it settles). */
interface Pending {
  resolve: (reply: DirectReply) => void;
  reject: (err: unknown) => void;
}

const SETTLED = (): void => undefined;

/** Ids of direct requests: strings, so they never meet the SDK `Client`'s numeric ids on the same connection. */
const ID_PREFIX = 'tg.';

/**
 * Requests sent to an upstream without the MCP SDK `Client`'s request bookkeeping, so a proxied
 * call costs the gateway little more than a raw hop would: no zod parse of the answer, no timer,
 * AbortSignal listener and handler maps per request beyond one map entry, one deadline on the
 * shared wheel and (when cancellable) one abort listener. The SDK still owns the connection
 * (initialisation, notifications, progress, requests from the upstream); answers to direct requests
 * are claimed from the transport before the SDK sees them, with their text where the transport
 * offers it (`RawMessageSource`), so results can be passed on untouched. Used for the hot
 * `tools/call`; everything else stays on the SDK.
 */
export class DirectCalls {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;

  constructor(private readonly deadlines: DeadlineWheel) {}

  /**
   * Claims answers to direct requests on a transport the SDK `Client` is connected to (call after
   * `client.connect`): through the raw seam when the transport has it, and in front of the SDK's
   * `onmessage` for any transport. `arrived` sees the other messages that came tagged with the
   * request whose stream carried them (it may consume them by returning true).
   */
  attach(transport: Transport, arrived?: (message: Record<string, unknown>, tag: object) => boolean): void {
    (transport as RawMessageSource).onRawMessage = (text, message, tag) =>
      this.claim(message, text) || (tag !== undefined && arrived !== undefined && arrived(message, tag));
    const sdk = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.claim(message as unknown as Record<string, unknown>, undefined)) sdk?.(message, extra);
    };
  }

  /** Requests in flight. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Sends one request and waits for its answer (at most `timeoutMs`; the SDK's timeout error).
   * Aborting `signal` sends `notifications/cancelled` upstream and rejects with the signal's reason;
   * so does the timeout, as the SDK does.
   */
  request(
    transport: Transport,
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
    signal?: CallSignal,
    tag?: object,
  ): Promise<DirectReply> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    const id = `${ID_PREFIX}${(this.seq += 1)}`;
    return new Promise<DirectReply>((resolve, reject) => {
      const done = () => {
        this.pending.delete(id);
        // The entry lets go of the request's promise (and the answer it resolved with): a map as
        // old as the connection may still hold it in a stale hash table until the next full
        // collection (see DownstreamRouter.forget).
        entry.resolve = entry.reject = SETTLED;
        deadline.cancel();
        signal?.removeEventListener('abort', onAbort);
      };
      const cancel = (reason: string) => {
        transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }).catch(() => undefined);
      };
      const onAbort = () => {
        done();
        cancel(String(signal?.reason ?? 'cancelled'));
        reject(signal?.reason ?? new Error('aborted'));
      };
      const entry: Pending = {
        resolve: (reply) => {
          done();
          resolve(reply);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      };
      const deadline = this.deadlines.schedule(timeoutMs, () => {
        done();
        cancel('timeout');
        reject(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, entry);
      const options: TaggedSendOptions | undefined = tag === undefined ? undefined : { tag };
      transport.send({ jsonrpc: '2.0', id, method, params }, options).catch((err: unknown) => {
        // Failed to send (or, over HTTP, the POST itself failed): the answer will never come.
        this.pending.get(id)?.reject(err);
      });
    });
  }

  /** Fails every request in flight (the connection is gone): the SDK's "connection closed" error. */
  failAll(): void {
    if (this.pending.size === 0) return;
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
  }

  /** Takes an incoming message when it answers a direct request. */
  private claim(message: Record<string, unknown>, text: string | undefined): boolean {
    const id = message.id;
    if (typeof id !== 'string' || !id.startsWith(ID_PREFIX) || message.method !== undefined) return false;
    const p = this.pending.get(id);
    if (!p) return false;
    p.resolve({ message, text });
    return true;
  }
}
