import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deadline, DeadlineWheel } from '../lib/deadline-wheel.js';
import { errorBody, type SplicedResponse } from './protocol.js';

/** Raised while reading a body past the size cap. */
export class BodyTooLargeError extends Error {}

/** Reads a request body, refusing (without buffering it) anything over `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
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

/** The last Accept header parsed, and what it lists (a client sends the same one on every request). */
let lastAccept: { header: string; json: boolean; sse: boolean } | undefined;

/** True when an `Accept` header lists the media type (or a matching wildcard). */
export function accepts(header: string | undefined, type: 'application/json' | 'text/event-stream'): boolean {
  if (!header) return false;
  if (lastAccept?.header !== header)
    lastAccept = { header, json: parseAccepts(header, 'application/json'), sse: parseAccepts(header, 'text/event-stream') };
  return type === 'application/json' ? lastAccept.json : lastAccept.sse;
}

function parseAccepts(header: string, type: 'application/json' | 'text/event-stream'): boolean {
  const [major] = type.split('/');
  for (const part of header.split(',')) {
    const media = part.split(';')[0]!.trim().toLowerCase();
    if (media === type || media === '*/*' || media === `${major}/*`) return true;
  }
  return false;
}

/** One SSE event carrying a JSON-RPC message. */
export function sseEvent(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}

/**
 * The answer to one POST: plain JSON by default, switched to an SSE stream as soon as something
 * must be sent before the response (progress), when the method asks for it, or when the answer
 * is slow. Once streaming, responses are events and the stream ends after the last one.
 */
export class ResponseChannel {
  private streaming = false;
  private slowTimer: Deadline | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
    private readonly slowMs: number,
    /** The shared timer the slow-answer switch runs on. */
    private readonly deadlines: DeadlineWheel,
  ) {}

  get isStreaming(): boolean {
    return this.streaming;
  }

  /** Starts the SSE stream (idempotent). */
  openStream(): void {
    if (this.streaming || this.res.headersSent || this.res.writableEnded) return;
    this.streaming = true;
    this.clearSlow();
    this.res.writeHead(200, { ...this.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    this.res.flushHeaders();
  }

  /** Arms the switch to SSE after the slow threshold. */
  streamIfSlow(): void {
    if (this.streaming || this.slowTimer) return;
    this.slowTimer = this.deadlines.schedule(this.slowMs, () => {
      this.slowTimer = undefined;
      // An SSE comment line: keeps proxies and clients from timing out an idle connection.
      this.openStream();
      if (this.streaming && !this.res.writableEnded) this.res.write(': waiting for the upstream\n\n');
    });
  }

  /** Sends a message related to the request (opens the stream). */
  notify(message: string): void {
    this.openStream();
    if (this.streaming && !this.res.writableEnded) this.res.write(sseEvent(message));
  }

  /** Sends one response event (streaming only). */
  event(message: string): void {
    if (this.streaming && !this.res.writableEnded) this.res.write(sseEvent(message));
  }

  /** Ends the answer: the body as JSON (with `status`), or the last event and the end of the stream. */
  finish(status: number, body: string | SplicedResponse | null): void {
    this.clearSlow();
    if (this.res.writableEnded) return;
    if (this.streaming) {
      if (body !== null) this.res.write(sseEvent(String(body)));
      this.res.end();
    } else if (body === null) {
      this.res.writeHead(202, this.headers);
      this.res.end();
    } else {
      sendJson(this.res, status, body, this.headers);
    }
  }

  /**
   * Ends the answer without a response (a request the client cancelled): the SSE stream (opened now
   * if the answer was still plain JSON) ends with no response event.
   */
  abandon(): void {
    this.clearSlow();
    if (this.res.writableEnded) return;
    this.openStream();
    this.res.end();
  }

  private clearSlow(): void {
    this.slowTimer?.cancel();
    this.slowTimer = undefined;
  }
}
