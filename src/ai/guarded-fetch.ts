import type { OutboundPolicy } from '../lib/outbound-policy.js';
import { ResponseTooLargeError } from './ai-errors.js';

/** The `fetch` signature the vendor SDKs accept. */
export type SdkFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
  policy: OutboundPolicy;
  /** Largest response body read, in bytes; a larger one errors the body stream (ResponseTooLargeError). */
  maxResponseBytes: number;
  /** Drop the `Authorization` header the SDK insists on when the configuration has no key (local servers). */
  stripAuthorization?: boolean;
}

/**
 * The `fetch` given to the vendor SDKs: every request passes the outbound-address policy (SSRF
 * guard; loopback and private addresses only when allow-listed), redirects are not followed, and
 * response bodies are capped so a hostile or broken endpoint cannot exhaust memory.
 */
export function guardedFetch(options: GuardedFetchOptions): SdkFetch {
  const { policy, maxResponseBytes } = options;
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : input;
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    if (options.stripAuthorization) headers.delete('authorization');
    const res = await policy.fetch(url, { ...init, headers, redirect: 'manual' });
    if (!res.body || [101, 204, 205, 304].includes(res.status)) return res;
    // Errors surface while the SDK reads the body, never from fetch itself: a fetch error would be retried as a connection error.
    const declared = Number(res.headers.get('content-length') ?? NaN);
    let seen = 0;
    const capped = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start(controller) {
          if (Number.isFinite(declared) && declared > maxResponseBytes) controller.error(new ResponseTooLargeError(maxResponseBytes));
        },
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxResponseBytes) controller.error(new ResponseTooLargeError(maxResponseBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
