import { AsyncResource } from 'node:async_hooks';
import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { Pool, type Dispatcher } from 'undici';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UpstreamHttpError } from './upstream-errors.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { TaggedSendOptions } from './direct-calls.js';
import type { RawMessageSource } from './raw-message.js';
import { traceHeadersOf, tracingOn } from '../telemetry/tracing.js';

/** Options of a lean Streamable HTTP client transport. */
export interface LeanHttpTransportOptions {
  /** Extra headers sent with every request (the server's configured headers, secrets opened). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Reconnect attempts of the standalone GET stream after it ends (0 disables reconnects). */
  readonly maxStreamReconnects?: number;
  /** First delay before reopening the GET stream; grows 1.5× per attempt. */
  readonly streamReconnectDelayMs?: number;
  /** Longest `close()` waits for the session DELETE. */
  readonly deleteTimeoutMs?: number;
  /** GETs that resume one request's answer stream, in a row without a message, before it is given up. */
  readonly maxResumeAttempts?: number;
}

/** Where a request's answer stream goes when it is resumed: its pending request ids, tag or async context. */
interface AnswerStream {
  readonly pending: Set<string | number>;
  readonly tag: object | undefined;
  readonly scope: AsyncResource | undefined;
}

/** Bytes of an error body kept for the error message. */
const ERROR_BODY_LIMIT = 2048;

/**
 * A Streamable HTTP client transport (MCP 2025-03-26 and later) for the SDK `Client` (which still
 * does initialisation, notifications and the requests it sends itself). Versus the SDK's own
 * transport it avoids what the profile blamed for 40 % of the gateway's CPU on this path: `fetch`
 * and web streams per request, zod parsing of every message in the transport, and an AbortSignal
 * per request. POSTs go through undici's dispatcher (a keep-alive pool; handler callbacks, no
 * stream objects per response); the rare GET stream and the session DELETE through `node:http`.
 * Everything in flight is destroyed on close (the only abort path, with no listeners). SSE bodies
 * are parsed incrementally with `eventsource-parser`; their messages go out with the tag of the
 * request whose POST carried them, or, for a request sent untagged by the SDK client, in that
 * request's async context (what attributes the upstream's requests to their caller). Every message
 * is offered with its text on the raw seam first (`RawMessageSource`). Redirects are not followed
 * (a 3xx is an error, as the outbound policy was checked for this URL only). An answer stream that
 * ends before the answer came is resumed as MCP 2025-11-25 says (SEP-1699): a GET with
 * `Last-Event-ID`, after the server's `retry` delay; the standalone GET stream honours `retry` too.
 */
export class LeanHttpClientTransport implements Transport, RawMessageSource {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  onRawMessage?: (text: string, message: Record<string, unknown>, tag?: object) => boolean;

  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  /** The POSTs' keep-alive pool. */
  private readonly pool: Pool;
  private readonly path: string;
  /** Answers received on the pool: after the first, a socket error before an answer may be a reused socket's. */
  private answers = 0;
  private readonly inflight = new Set<http.ClientRequest>();
  private readonly extraHeaders: Record<string, string>;
  private session: string | undefined;
  private protocolVersion: string | undefined;
  private started = false;
  private closed = false;
  private streamAttempts = 0;
  private streamTimer: NodeJS.Timeout | undefined;
  private postHeadersCache: { session: string | undefined; version: string | undefined; headers: Record<string, string> } | undefined;

  constructor(
    private readonly url: URL,
    private readonly options: LeanHttpTransportOptions = {},
  ) {
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') throw new Error(`unsupported URL scheme ${url.protocol}`);
    this.request = secure ? https.request : http.request;
    // One agent per transport: close() destroys exactly this upstream's sockets.
    this.agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    // Our own deadlines bound every call; undici's body and header timeouts would cut a long
    // tool call or a quiet SSE answer short.
    this.pool = new Pool(url.origin, { headersTimeout: 0, bodyTimeout: 0 });
    this.path = `${url.pathname}${url.search}`;
    this.extraHeaders = { ...options.headers };
  }

  /** The session id the server assigned at initialisation, if any. */
  get sessionId(): string | undefined {
    return this.session;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LeanHttpClientTransport already started');
    this.started = true;
  }

  /** Sent as `mcp-protocol-version` on every request after initialisation. */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** `options.tag` (a direct request's call) comes back with every message of the request's answer stream. */
  async send(
    message: JSONRPCMessage | JSONRPCMessage[],
    options?: TaggedSendOptions & { headers?: Record<string, string> },
  ): Promise<void> {
    try {
      await this.post(message, options?.tag, options?.headers);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      if (!this.closed) this.onerror?.(error);
      throw error;
    }
  }

  /** Aborts every request in flight, ends the GET stream, ends the session (DELETE, bounded), then `onclose`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.streamTimer);
    const reason = new Error('upstream transport closed');
    for (const req of this.inflight) req.destroy(reason);
    this.inflight.clear();
    const pool = this.pool.destroy(reason).catch(() => undefined);
    if (this.session) await this.deleteSession().catch(() => undefined);
    await pool;
    this.agent.destroy();
    this.onclose?.();
  }

  /** The headers of every POST, made anew only when the session or the protocol version changes. */
  private postHeaders(): Record<string, string> {
    const cached = this.postHeadersCache;
    if (cached && cached.session === this.session && cached.version === this.protocolVersion) return cached.headers;
    const headers = this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    this.postHeadersCache = { session: this.session, version: this.protocolVersion, headers };
    return headers;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { ...extra };
    if (this.session) h['mcp-session-id'] = this.session;
    if (this.protocolVersion) h['mcp-protocol-version'] = this.protocolVersion;
    // Configured headers last, as the SDK transport does.
    return Object.assign(h, this.extraHeaders);
  }

  /** Starts one request; resolves with its response (tracked in `inflight` until the body ends). */
  private open(method: string, headers: Record<string, string>, body?: string, retry = true): Promise<http.IncomingMessage> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = this.request(this.url, { method, agent: this.agent, headers }, (res) => {
        answered = true;
        res.once('close', () => this.inflight.delete(req));
        resolve(res);
      });
      this.inflight.add(req);
      req.once('error', (err: NodeJS.ErrnoException) => {
        this.inflight.delete(req);
        // A kept-alive socket the server closed just as we reused it: the request never reached
        // the server, so it is sent once more on a fresh socket (what Node's docs advise).
        if (retry && !answered && !this.closed && req.reusedSocket && err.code === 'ECONNRESET') {
          this.open(method, headers, body, false).then(resolve, reject);
          return;
        }
        reject(err);
      });
      req.end(body);
    });
  }

  /**
   * POSTs one message (or batch) and handles the answer: resolves once a JSON answer is delivered,
   * or as soon as an SSE answer starts (its events are delivered as they arrive, as the SDK
   * transport does). A socket error before any answer, on a pool that has answered before, is
   * taken for a kept-alive socket the server closed as it was reused: the POST is sent once more.
   */
  protected post(message: JSONRPCMessage | JSONRPCMessage[], tag: object | undefined, extra?: Record<string, string>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    const body = JSON.stringify(message);
    const list = Array.isArray(message) ? message : [message];
    const requestIds = list.flatMap((m) => ('method' in m && 'id' in m && m.id !== undefined ? [m.id] : []));
    const hasRequest = requestIds.length > 0;
    const initialized = !Array.isArray(message) && 'method' in message && message.method === 'notifications/initialized';
    const trace = tracingOn ? traceHeadersOf(message) : undefined;
    const headers = trace || extra ? { ...this.postHeaders(), ...trace, ...extra } : this.postHeaders();
    // An SSE answer may carry the upstream's requests: they are delivered with the request's tag,
    // or (an untagged request, sent by the SDK client) in the request's async context.
    const scope = hasRequest && tag === undefined ? new AsyncResource('toolgate.upstream.post') : undefined;
    return new Promise<void>((resolve, reject) => {
      const attempt = (retry: boolean) => {
        const handler = new PostHandler(this, hasRequest ? { pending: new Set(requestIds), tag, scope } : undefined, (err) => {
          if (err === undefined) {
            if (initialized) this.openStream();
            resolve();
          } else if (retry && !handler.started && !this.closed && this.answers > 0 && isSocketError(err)) {
            attempt(false);
          } else reject(err);
        });
        this.pool.dispatch({ origin: this.url.origin, path: this.path, method: 'POST', headers, body }, handler);
      };
      attempt(true);
    });
  }

  /** @internal The pool answered (a response started). */
  answered(sessionId: string | string[] | undefined): void {
    this.answers += 1;
    if (typeof sessionId === 'string' && sessionId) this.session = sessionId;
  }

  /** @internal Delivers the text of an SSE event: claimed raw, or parsed and handed on; not JSON is an error. Returns what it parsed. */
  deliverEvent(text: string, tag?: object): unknown {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      this.onerror?.(new Error('upstream sent an SSE event that is not JSON'));
      return undefined;
    }
    this.deliverParsed(data, text, tag);
    return data;
  }

  /** @internal Delivers parsed message(s) and the text they were parsed from. */
  deliverParsed(data: unknown, text: string, tag?: object): void {
    this.deliver(data, Array.isArray(data) ? undefined : text, tag);
  }

  /** @internal Reports an error of a stream being read (not of a request: those reject `send`). */
  streamError(err: Error): void {
    if (!this.closed) this.onerror?.(err);
  }

  /**
   * Hands parsed JSON-RPC message(s) to the client, each offered on the raw seam first (with
   * `text`, the text of a single message); a shape that is not JSON-RPC is an error.
   */
  protected deliver(data: unknown, text?: string, tag?: object): void {
    const list = Array.isArray(data) ? data : [data];
    for (const m of list) {
      if (typeof m !== 'object' || m === null || (m as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
        this.onerror?.(new Error('upstream sent a message that is not JSON-RPC 2.0'));
        continue;
      }
      if (text !== undefined && this.onRawMessage?.(text, m as Record<string, unknown>, tag)) continue;
      this.onmessage?.(m as JSONRPCMessage);
    }
  }

  /** Parses an SSE body as it arrives; `standalone` marks the GET stream (reopened when it ends). */
  private readEvents(res: http.IncomingMessage, standalone: boolean): void {
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    const parser = createParser({
      onEvent: (event: EventSourceMessage) => {
        if (event.id) lastEventId = event.id;
        if (event.event && event.event !== 'message') return;
        if (!event.data) return; // priming events carry only an id
        if (standalone) this.streamAttempts = 0;
        this.deliverEvent(event.data);
      },
      onRetry: (ms) => (retryMs = ms),
    });
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => parser.feed(chunk));
    res.once('error', (err) => {
      if (!this.closed) this.onerror?.(new Error(`SSE stream disconnected: ${err.message}`));
    });
    if (standalone) res.once('close', () => this.streamEnded(lastEventId, retryMs));
  }

  /**
   * @internal A request's answer stream ended before every answer came: after the server's
   * `retry` delay (else the reconnect delay), a GET with `Last-Event-ID` takes it up where it
   * stopped; its messages go to the request's tag or async context, as the POST's would have. A
   * stream without an event id cannot be resumed (the request's own deadline then ends it).
   */
  resumeAnswers(stream: AnswerStream, lastEventId: string | undefined, retryMs: number | undefined, attempt = 0): void {
    if (this.closed || stream.pending.size === 0 || !lastEventId) return;
    if (attempt >= (this.options.maxResumeAttempts ?? 5)) {
      this.onerror?.(new Error('upstream answer stream ended before the answer and could not be resumed'));
      return;
    }
    const delay = retryMs ?? this.options.streamReconnectDelayMs ?? 1000;
    const timer = setTimeout(() => {
      this.open('GET', this.headers({ accept: 'text/event-stream', 'last-event-id': lastEventId })).then(
        (res) => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            res.resume();
            if (!this.closed) this.onerror?.(new StreamableHTTPError(status, `Failed to resume SSE stream: HTTP ${status}`));
            return;
          }
          let lastId = lastEventId;
          let retry = retryMs;
          let progressed = false;
          const parser = createParser({
            onEvent: (event: EventSourceMessage) => {
              if (event.id) lastId = event.id;
              if (event.event && event.event !== 'message') return;
              if (!event.data) return;
              progressed = true;
              const data = event.data;
              const parsed = stream.scope
                ? stream.scope.runInAsyncScope(() => this.deliverEvent(data))
                : this.deliverEvent(data, stream.tag);
              settleAnswers(stream.pending, parsed);
            },
            onRetry: (ms) => (retry = ms),
          });
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            parser.feed(chunk);
            // Everything this stream was resumed for has come: the rest of it is not ours to read.
            if (stream.pending.size === 0) res.destroy();
          });
          res.once('error', () => undefined);
          res.once('close', () => this.resumeAnswers(stream, lastId, retry, progressed ? 0 : attempt + 1));
        },
        (err: Error) => {
          if (!this.closed) this.onerror?.(err);
        },
      );
    }, delay);
    timer.unref();
  }

  /** Opens the standalone GET stream for server-initiated messages (405: the server has none). */
  private openStream(lastEventId?: string): void {
    if (this.closed) return;
    const extra: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId) extra['last-event-id'] = lastEventId;
    this.open('GET', this.headers(extra)).then(
      async (res) => {
        const status = res.statusCode ?? 0;
        if (status === 405) {
          res.resume();
          return;
        }
        if (status < 200 || status >= 300) {
          res.resume();
          if (!this.closed) this.onerror?.(new StreamableHTTPError(status, `Failed to open SSE stream: HTTP ${status}`));
          return;
        }
        this.readEvents(res, true);
      },
      (err: Error) => {
        if (!this.closed) this.onerror?.(err);
      },
    );
  }

  /** The GET stream ended: reopen it a bounded number of times (the connection's probe covers the rest). */
  private streamEnded(lastEventId: string | undefined, retryMs: number | undefined): void {
    const max = this.options.maxStreamReconnects ?? 2;
    if (this.closed || this.streamAttempts >= max) return;
    // The server's `retry` is the least it asked us to wait; our backoff grows from there.
    const delay = (retryMs ?? this.options.streamReconnectDelayMs ?? 1000) * 1.5 ** this.streamAttempts;
    this.streamAttempts += 1;
    this.streamTimer = setTimeout(() => this.openStream(lastEventId), delay);
    this.streamTimer.unref();
  }

  /** Ends the session at the server (405 means it does not allow that; either way we are done). */
  private async deleteSession(): Promise<void> {
    const headers: Record<string, string> = { 'mcp-session-id': this.session ?? '' };
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    Object.assign(headers, this.extraHeaders);
    await new Promise<void>((resolve) => {
      const req = this.request(this.url, { method: 'DELETE', agent: this.agent, headers }, (res) => {
        res.resume();
        res.once('end', resolve);
        res.once('error', () => resolve());
      });
      req.setTimeout(this.options.deleteTimeoutMs ?? 1000, () => {
        req.destroy();
        resolve();
      });
      req.once('error', () => resolve());
      req.end();
    });
    this.session = undefined;
  }
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(header: string | undefined): string {
  if (!header) return '';
  const semi = header.indexOf(';');
  return (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
}

/** Removes from `pending` the ids that `data` (a parsed message or batch) answers. */
function settleAnswers(pending: Set<string | number>, data: unknown): void {
  for (const m of Array.isArray(data) ? data : [data]) {
    if (typeof m !== 'object' || m === null || !('result' in m || 'error' in m)) continue;
    const id = (m as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') pending.delete(id);
  }
}

/** A socket-level failure (the connection was closed or reset under the request). */
function isSocketError(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * The undici handler of one POST: status and headers, then a JSON body collected and delivered at
 * its end, or an SSE body parsed as it arrives. `settle` is called once: without an error when the
 * answer was handled (JSON) or has started (SSE), with one when the POST failed.
 */
class PostHandler implements Dispatcher.DispatchHandler {
  /** A response (past 1xx) has started. */
  started = false;
  private settled = false;
  private status = 0;
  private sse: { feed(chunk: string): void } | undefined;
  private decoder: StringDecoder | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private type = '';
  /** The `WWW-Authenticate` of a refused POST (an OAuth upstream's challenge). */
  private challenge: string | undefined;

  constructor(
    private readonly transport: LeanHttpClientTransport,
    /** The request(s) of the POST, their tag or async context (undefined: only notifications or answers). */
    private readonly answers: AnswerStream | undefined,
    private readonly settle: (err?: Error) => void,
  ) {
    this.hasRequest = answers !== undefined;
    this.scope = answers?.scope;
    this.tag = answers?.tag;
  }

  private readonly hasRequest: boolean;
  private readonly scope: AsyncResource | undefined;
  /** The request's tag, handed back with every message of its answer. */
  private readonly tag: object | undefined;
  private lastEventId: string | undefined;
  private retryMs: number | undefined;

  onRequestStart(): void {}

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return;
    this.started = true;
    this.status = statusCode;
    this.transport.answered(headers['mcp-session-id']);
    if (statusCode === 401 || statusCode === 403) {
      const challenge = headers['www-authenticate'];
      this.challenge = Array.isArray(challenge) ? challenge.join(', ') : challenge;
    }
    const contentType = headers['content-type'];
    this.type = mediaType(Array.isArray(contentType) ? contentType[0] : contentType);
    if (statusCode >= 200 && statusCode < 300 && statusCode !== 202 && this.hasRequest && this.type === 'text/event-stream') {
      const parser = createParser({
        onEvent: (event: EventSourceMessage) => {
          if (event.id) this.lastEventId = event.id;
          if (event.event && event.event !== 'message') return;
          if (!event.data) return; // priming events carry only an id
          const data = event.data;
          const parsed = this.scope
            ? this.scope.runInAsyncScope(() => this.transport.deliverEvent(data))
            : this.transport.deliverEvent(data, this.tag);
          if (this.answers) settleAnswers(this.answers.pending, parsed);
        },
        onRetry: (ms) => (this.retryMs = ms),
      });
      this.sse = parser;
      this.decoder = new StringDecoder('utf8');
      this.done();
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.sse) {
      this.sse.feed(this.decoder!.write(chunk));
      return;
    }
    // An error body is kept only as far as the message needs it.
    if (this.status >= 300 && this.size >= ERROR_BODY_LIMIT) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    if (this.sse) {
      const rest = this.decoder!.end();
      if (rest) this.sse.feed(rest);
      if (this.answers && this.answers.pending.size > 0) this.transport.resumeAnswers(this.answers, this.lastEventId, this.retryMs);
      return;
    }
    const status = this.status;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.chunks = [];
    if (status < 200 || status >= 300) {
      const text = body.subarray(0, ERROR_BODY_LIMIT).toString('utf8');
      this.done(new UpstreamHttpError(status, `Error POSTing to endpoint: ${text}`, this.challenge, text));
      return;
    }
    if (status === 202 || !this.hasRequest) {
      this.done();
      return;
    }
    if (this.type !== 'application/json') {
      this.done(new StreamableHTTPError(-1, `Unexpected content type: ${this.type || 'none'}`));
      return;
    }
    const text = body.toString('utf8');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      this.done(new SyntaxError('upstream sent an answer that is not JSON'));
      return;
    }
    try {
      this.transport.deliverParsed(data, text, this.tag);
    } finally {
      this.done();
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (!this.settled) {
      this.done(err);
      return;
    }
    if (this.sse) this.transport.streamError(new Error(`SSE stream disconnected: ${err.message}`));
  }

  private done(err?: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(err);
  }
}
