/**
 * How the transport writes complete answers: JSON bodies (a pre-serialised page spliced in as it
 * is), transport-level JSON-RPC errors, and SSE events. Used at every step of the pipeline that
 * answers on its own (guard, body, headers, sessions) and by the answer of a dispatched request
 * (response-channel.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, RpcCode, type SplicedResponse } from '../protocol.js';

/** One request header (the first, when repeated). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Writes a complete JSON response. */
export function sendJson(res: ServerResponse, status: number, body: string | SplicedResponse, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (typeof body !== 'string') {
    // A cached page: its bytes go to the socket as they are, in one corked write with the head.
    const head = Buffer.from(body.head, 'utf8');
    const page = body.result.bytes;
    res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': head.length + page.length + 1 });
    res.cork();
    res.write(head);
    res.write(page);
    res.end(CLOSE_BRACE); // end() uncorks
    return;
  }
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const CLOSE_BRACE = Buffer.from('}');

/** Writes a transport-level JSON-RPC error (`id: null` unless given). */
export function sendRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  options: { data?: unknown; id?: unknown; headers?: Record<string, string> } = {},
): void {
  sendJson(res, status, errorBody(code, message, options.data, options.id ?? null), options.headers);
}

/**
 * The answer to what would open a session or a stream while the server stops (after `drain()`):
 * 503, to be retried in a moment (on another instance), on a connection that closes.
 */
export function refuseShuttingDown(res: ServerResponse): void {
  sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
}

/** One SSE event carrying a JSON-RPC message. */
export function sseEvent(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}
