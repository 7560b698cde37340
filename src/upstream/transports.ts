/**
 * The client transports of the upstream pool, and what the connection needs to know about them:
 * which transport reaches a server (the lean stdio and Streamable HTTP transports, the SDK's client
 * for the 2024-11-05 HTTP+SSE transport), the pid of a stdio server, and how a transport is shut
 * down.
 */
import { setMaxListeners } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { DualEraHttpClientTransport } from './dual-era-http-transport.js';
import { LeanStdioClientTransport } from './lean-stdio-transport.js';

/** How to reach one upstream server (secrets already opened). */
export type UpstreamTransportSpec =
  | {
      transport: 'stdio';
      command: string;
      args: readonly string[];
      env: Readonly<Record<string, string>>;
      cwd: string | null;
      /** `env` is the whole environment (a sandboxed server's): no safe base environment is added. */
      exactEnv?: boolean;
    }
  | { transport: 'streamable_http' | 'sse'; url: string; headers: Readonly<Record<string, string>> };

/** How long a stdio server may take to exit after its stdin closes, before SIGTERM. */
const STDIO_GRACE_MS = 500;

/** A new, unstarted client transport to the server `c` describes. */
export function createTransport(c: UpstreamTransportSpec): Transport {
  if (c.transport === 'stdio') {
    return new LeanStdioClientTransport({
      command: c.command,
      args: [...c.args],
      // Only a safe base environment (PATH, HOME, ...) plus the server's own variables: never ours.
      env: c.exactEnv ? { ...c.env } : { ...getDefaultEnvironment(), ...c.env },
      ...(c.cwd ? { cwd: c.cwd } : {}),
    });
  }
  const url = new URL(c.url);
  if (c.transport === 'sse') return new SSEClientTransport(url, { requestInit: { headers: { ...c.headers } }, fetch: linkedSignalFetch });
  return new DualEraHttpClientTransport(url, { headers: c.headers });
}

/** The stdio server's process id while it runs; null for other transports. */
export function stdioPid(transport: Transport | undefined): number | null {
  return transport instanceof LeanStdioClientTransport ? transport.pid : null;
}

/**
 * Closes a client (or a bare transport). A stdio server gets its stdin closed, then SIGTERM after
 * STDIO_GRACE_MS if it is still running (the transport alone would wait 2 s), then SIGKILL from the
 * transport.
 */
export async function shutDown(client: Client | undefined, transport: Transport | undefined): Promise<void> {
  const pid = stdioPid(transport);
  const term = pid
    ? setTimeout(() => {
        try {
          // The server leads a process group of its own: the group goes, children included.
          process.kill(process.platform === 'win32' ? pid : -pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }, STDIO_GRACE_MS)
    : undefined;
  try {
    if (client) await client.close().catch(() => undefined);
    else if (transport) await transport.close().catch(() => undefined);
  } finally {
    clearTimeout(term);
  }
}

/**
 * `fetch` for the SDK's HTTP+SSE client transport. It passes one long-lived AbortSignal (the
 * transport's) to every request, and undici's fetch leaves a listener on it per request until
 * garbage collection: under load thousands pile up (MaxListenersExceededWarning on every call, and
 * the CPU to print it). Each request here gets its own signal, linked to the transport's only while the request is
 * in flight: for a JSON answer until the headers arrive, for an event stream until it ends.
 */
export const linkedSignalFetch: typeof fetch = async (input, init) => {
  const outer = init?.signal;
  if (!outer) return fetch(input, init);
  const inner = new AbortController();
  // One listener per request in flight is expected here (removed when it settles), so many
  // concurrent calls to one upstream are no leak: no MaxListenersExceededWarning past 10.
  setMaxListeners(0, outer);
  if (outer.aborted) inner.abort(outer.reason);
  const onAbort = () => inner.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  const unlink = () => outer.removeEventListener('abort', onAbort);
  let response: Response;
  try {
    response = await fetch(input, { ...init, signal: inner.signal });
  } catch (err) {
    unlink();
    throw err;
  }
  if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    unlink();
    return response;
  }
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      flush: unlink,
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
};
