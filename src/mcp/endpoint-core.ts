import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCRequest } from 'json-rpc-2.0';
import type { ParameterizedContext } from 'koa';
import type { Config } from '../config.js';
import type { CallSignal, UpstreamCaller } from '../domain/catalog.js';
import { DeadlineWheel } from '../lib/deadline-wheel.js';
import { isLoopbackName } from '../lib/host-names.js';
import type { Logger } from '../logger.js';
import type { CallRecorder } from './call-recorder.js';
import { ClientRequests, LOG_LEVELS, META_LOG_LEVEL, type LogLevel } from './client-requests.js';
import type { McpCaller, McpContext, McpView } from './context.js';
import { Cancellation } from './cancellation.js';
import { accepts, BodyTooLargeError, readBody, ResponseChannel, sendRpcError, sseEvent } from './http-transport.js';
import {
  LATEST_STATEFUL_VERSION,
  STATEFUL_VERSIONS,
  messageKind,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  STATELESS_VERSION,
  RpcCode,
  serializeAnswer,
  serializeResponse,
  type SplicedResponse,
  SSE_TRANSPORT_VERSIONS,
  SUPPORTED_VERSIONS,
  type Era,
  type MessageKind,
  type RpcMessage,
} from './protocol.js';
import { INPUT_REQUIRED_METHODS, InputExchanges, type JsonRpcAnswer } from './input-required.js';
import { InvalidFilterError, ListenStreams } from './listen.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { McpDispatcher, METHOD_NAMES } from './rpc-server.js';
import { SessionStore, type Session, type SharedSessions } from './sessions.js';
import { paramHeaderMismatch } from './param-headers.js';
import { TaskRegistry } from './tasks.js';

/** Tunables of the MCP endpoints (defaults suit production; tests shorten them). */
export interface McpOptions {
  /** Tools per `tools/list` page. */
  toolsPageSize?: number;
  /** A session unused this long ends. */
  sessionIdleMs?: number;
  /** Backstop timeout of one upstream call. */
  callTimeoutMs?: number;
  /** A call still running after this long is answered as an SSE stream. */
  slowResponseMs?: number;
  /** How long an upstream request that asked a 2026-07-28 caller for input waits for the retry. */
  inputWaitMs?: number;
  /** After an upstream asks for input, how long to wait for its other requests of the same round. */
  inputGatherMs?: number;
  /** How long a `requestState` of an input-required result is honoured. */
  requestStateTtlMs?: number;
}

export interface EndpointCoreDeps {
  upstreams: UpstreamCaller;
  recorder: CallRecorder;
  logger: Logger;
  config: Pick<Config, 'allowedOrigins' | 'publicUrl' | 'bodyLimitBytes' | 'host'> & Partial<Pick<Config, 'mcpMaxSessionsPerKey'>>;
  version: string;
  /** Where legacy sessions are shared with the other instances (Redis); absent: this instance only. */
  sharedSessions?: SharedSessions;
  options?: McpOptions;
  /** HMAC key of input-required `requestState` (derived from the master key; random when absent). */
  stateKey?: Buffer;
}

/**
 * What the access log line of one MCP request says: never the bundle key (the path), never
 * argument values. Filled in while the request is served; the app writes the line.
 */
export interface McpAccess {
  endpoint: 'bundle' | 'gateway';
  /** Bundle id, once the key resolved to a bundle. */
  bundle?: string;
  /** User id, once the gateway's credential resolved to a user. */
  user?: string;
  /** JSON-RPC method (`batch` for a batch), or `stream` / `end_session` / `info` for GET / DELETE / `/info`. */
  method?: string;
  /** The tool name the caller asked for (`tools/call`). */
  tool?: string;
  /** JSON-RPC error code of the answer, when it is an error (single requests). */
  rpcError?: number;
}

/** What a route resolved a request to: what the caller sees, and who the caller is. */
export interface McpTarget {
  /** What sessions opened here serve (a bundle id, `gateway:<user id>`): announcements and endings go by scope. */
  readonly scope: string;
  /** The credential behind the request: a session answers only to the credential that opened it. */
  readonly credential: string;
  readonly caller: McpCaller;
  /** The view the request is served from, taken when it is dispatched (a cache lookup). */
  view(): McpView;
  /** Headers added to every answer (rate-limit headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A request a route refuses before any MCP rule applies: a JSON-RPC error with `id: null`. */
export interface McpRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type McpResolution = { readonly target: McpTarget } | { readonly refusal: McpRefusal };

/**
 * One MCP route on the core: how a request becomes a target. Everything else (Origin/Host
 * guard, Accept and Content-Type, eras and sessions, 2026-07-28 headers, GET stream, DELETE,
 * cancellation, dispatch) is the core's and the same on every route.
 */
export interface McpRoute {
  readonly endpoint: 'bundle' | 'gateway';
  /** Resolves the request (after the method and Origin checks; before anything is read). */
  resolve(req: IncomingMessage, access: McpAccess): McpResolution | Promise<McpResolution>;
  /** The answer to an HTTP method the path does not serve (`allow`: those it does), in the route's error shape. */
  methodNotAllowed(res: ServerResponse, requestId: string, allow?: string): void;
}

/** Longest method or tool name copied into a log line. */
const MAX_LOGGED_NAME = 128;
const LIST_CHANGED = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';
/** Methods whose 2026-07-28 requests must name their target in `Mcp-Name`. */
/** The body field a 2026-07-28 request's `Mcp-Name` header mirrors (SEP-2243; the tasks methods: SEP-2663). */
const NAMED: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
const MAX_BATCH = 100;
/** The version of an implicit session whose request names none (the transport's default assumption). */
const IMPLICIT_VERSION = '2025-03-26';

/** The abort reason of a request the client cancelled (`notifications/cancelled`): it gets no response. */
class ClientCancelled extends Error {}

/** `binding`: who a 2026-07-28 request comes from (route scope and credential), for its input-required exchanges. */
type Base = { era: Era; session: Session | null; protocolVersion: string; binding?: string };
/** Where a request's related notifications go: its POST answer, or a legacy SSE session's stream. */
type AnswerChannel = Pick<ResponseChannel, 'notify' | 'openStream' | 'streamIfSlow'>;
/** One request's answer; `cancelled` ones are left out of the reply. */
type Answer = { status: number; body: string | SplicedResponse; errorCode?: number; cancelled?: boolean };

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function statelessVersionOf(msg: RpcMessage): unknown {
  const meta = (msg.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta && typeof meta === 'object' ? meta[META_PROTOCOL_VERSION] : undefined;
}

/**
 * The Streamable HTTP core shared by the MCP routes (`/mcp/bundle/{bundle_key}`, `/mcp/gateway`):
 * legacy sessions (2025-03-26, 2025-06-18, 2025-11-25) and stateless 2026-07-28 on one path.
 * Everything a request needs is in memory (the route resolves its target from memory or a
 * cache); the only I/O is the upstream call. Served ahead of body parsing: it reads the raw body
 * itself, with the size cap.
 */
export class EndpointCore {
  readonly sessions: SessionStore;
  readonly serverInfo: { name: string; version: string };
  readonly toolsPageSize: number;
  private readonly rpc: McpDispatcher;
  /** In-flight requests of each legacy session, for `notifications/cancelled` and DELETE. */
  private readonly inFlight = new Map<string, Map<string, Cancellation>>();
  private allowedOrigins = new Set<string>();
  private readonly publicOrigin: string | undefined;
  private readonly publicHost: string | undefined;
  private allowedHosts = new Set<string>();
  /** True when the server listens on a loopback address only (the default). */
  private readonly loopbackOnly: boolean;
  private readonly keepAlive: NodeJS.Timeout;
  private readonly slowMs: number;
  /** Requests being served: a stop waits for them (bounded) so cancelled calls still get their records. */
  private readonly active = new Set<Promise<void>>();
  /** Set by `drain()`: no new sessions or GET streams. */
  private draining = false;
  private readonly closeHooks: (() => void)[] = [];
  /** Server-to-client requests relayed from upstreams, waiting for the client's answer. */
  private readonly clientRequests = new ClientRequests();
  /** Open `subscriptions/listen` streams (2026-07-28). */
  readonly listens = new ListenStreams();
  /** 2026-07-28 requests waiting for the caller's input (input-required results). */
  private readonly exchanges: InputExchanges;
  private readonly subscriptions: ResourceSubscriptions;
  /** The backstop timeouts of upstream calls, on one timer. */
  private readonly deadlines = new DeadlineWheel();
  /** The callers' tasks (MCP tasks): tool calls run in the background. */
  readonly tasks = new TaskRegistry();

  constructor(private readonly deps: EndpointCoreDeps) {
    const o = deps.options ?? {};
    this.sessions = new SessionStore(o.sessionIdleMs ?? 30 * 60_000, Date.now, {
      ...(deps.config.mcpMaxSessionsPerKey !== undefined ? { maxPerScope: deps.config.mcpMaxSessionsPerKey } : {}),
      ...(deps.sharedSessions ? { shared: deps.sharedSessions } : {}),
    });
    this.subscriptions = new ResourceSubscriptions(deps.upstreams, deps.logger);
    this.sessions.onEnd = (s) => {
      this.cancelAll(s.id);
      this.clientRequests.endSession(s.id);
      this.subscriptions.endSession(s);
    };
    this.serverInfo = { name: 'toolgate', version: deps.version };
    this.toolsPageSize = o.toolsPageSize ?? 1000;
    this.rpc = new McpDispatcher({
      upstreams: deps.upstreams,
      recorder: deps.recorder,
      logger: deps.logger,
      callTimeoutMs: o.callTimeoutMs ?? 120_000,
      deadlines: this.deadlines,
      serverInfo: this.serverInfo,
      subscriptions: this.subscriptions,
      tasks: this.tasks,
    });
    this.slowMs = o.slowResponseMs ?? 1000;
    this.exchanges = new InputExchanges({
      stateKey: deps.stateKey ?? randomBytes(32),
      waitMs: o.inputWaitMs ?? 30_000,
      gatherMs: o.inputGatherMs ?? 50,
      stateTtlMs: o.requestStateTtlMs ?? 10 * 60_000,
    });
    this.setAllowedOrigins(deps.config.allowedOrigins);
    this.publicOrigin = deps.config.publicUrl ? new URL(deps.config.publicUrl).origin : undefined;
    this.publicHost = deps.config.publicUrl ? new URL(deps.config.publicUrl).hostname.toLowerCase() : undefined;
    this.loopbackOnly = isLoopbackName(deps.config.host);
    this.keepAlive = setInterval(() => {
      for (const s of this.sessions.streams()) s.stream?.write(': keepalive\n\n');
      this.listens.keepAlive();
    }, 25_000);
    this.keepAlive.unref();
  }

  /**
   * Serves the legacy HTTP+SSE transport (2024-11-05) of a route: `GET …/sse` opens a session and
   * its event stream, announcing `messagesPath?sessionId=…` in an `endpoint` event; `POST` there
   * carries the client's messages (202), whose responses travel on the stream. The session ends
   * with its stream.
   */
  serveSse(ctx: ParameterizedContext, route: McpRoute, part: 'sse' | 'messages', messagesPath: string): Promise<void> {
    return this.respond(ctx, route.endpoint, async (req, res, access) => {
      const expected = part === 'sse' ? 'GET' : 'POST';
      if (req.method !== expected) {
        route.methodNotAllowed(res, ctx.state.requestId as string, expected);
        return;
      }
      if (!this.originAllowed(req)) {
        sendRpcError(res, 403, RpcCode.Forbidden, 'Forbidden origin');
        return;
      }
      const resolution = await route.resolve(req, access);
      if ('refusal' in resolution) {
        const r = resolution.refusal;
        sendRpcError(res, r.status, r.code, r.message, r.headers ? { headers: { ...r.headers } } : {});
        return;
      }
      if (part === 'sse') this.openSseSession(req, res, access, resolution.target, messagesPath);
      else await this.sseMessages(req, res, access, resolution.target, String(ctx.query.sessionId ?? ''));
    });
  }

  private openSseSession(req: IncomingMessage, res: ServerResponse, access: McpAccess, target: McpTarget, messagesPath: string): void {
    access.method = 'stream';
    const accept = header(req, 'accept');
    if (accept !== undefined && !accepts(accept, 'text/event-stream')) {
      sendRpcError(res, 406, RpcCode.InvalidRequest, 'Not Acceptable: Accept must list text/event-stream');
      return;
    }
    if (this.draining) {
      sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
      return;
    }
    const session = this.sessions.create(target.scope, target.credential, LATEST_STATEFUL_VERSION, { sseTransport: true });
    res.writeHead(200, { ...target.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    res.write(`event: endpoint\ndata: ${messagesPath}?sessionId=${session.id}\n\n`);
    this.sessions.attachStream(session, res);
    res.once('close', () => this.sessions.end(session.id));
  }

  private async sseMessages(
    req: IncomingMessage,
    res: ServerResponse,
    access: McpAccess,
    target: McpTarget,
    sessionId: string,
  ): Promise<void> {
    const session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (
      !session ||
      !session.sseTransport ||
      session.scope !== target.scope ||
      session.credential !== target.credential ||
      !session.stream
    ) {
      sendRpcError(res, 404, RpcCode.SessionNotFound, 'Session not found');
      return;
    }
    const contentType = header(req, 'content-type');
    if (!contentType || contentType.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
      sendRpcError(res, 415, RpcCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req, this.deps.config.bodyLimitBytes)).toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        sendRpcError(res, 413, RpcCode.InvalidRequest, 'Request body too large', { headers: { connection: 'close' } });
        return;
      }
      if (!(err instanceof SyntaxError)) throw err;
      sendRpcError(res, 400, RpcCode.ParseError, 'Parse error');
      return;
    }
    const isBatch = Array.isArray(body);
    const messages = (isBatch ? body : [body]) as RpcMessage[];
    const kinds = messages.map(messageKind);
    if (messages.length === 0 || messages.length > MAX_BATCH || kinds.includes('invalid')) {
      sendRpcError(res, 400, RpcCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    access.method = isBatch ? 'batch' : String(messages[0]!.method ?? 'response').slice(0, MAX_LOGGED_NAME);
    res.writeHead(202, { ...target.headers, 'content-type': 'text/plain' });
    res.end('Accepted');
    const stream = session.stream;
    const write = (data: string) => {
      if (!stream.writableEnded) stream.write(sseEvent(data));
    };
    const channel: AnswerChannel = { notify: write, openStream: () => undefined, streamIfSlow: () => undefined };
    const view = target.view();
    const requests: RpcMessage[] = [];
    messages.forEach((m, i) => {
      if (kinds[i] === 'request') requests.push(m);
      else if (kinds[i] === 'notification') this.onNotification(session, m);
    });
    await Promise.all(
      requests.map(async (msg) => {
        if (msg.method === 'initialize') {
          const requested = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
          session.protocolVersion =
            typeof requested === 'string' && SSE_TRANSPORT_VERSIONS.includes(requested) ? requested : LATEST_STATEFUL_VERSION;
        }
        const base: Base = { era: 'stateful', session, protocolVersion: session.protocolVersion };
        const answer = await this.runOne(msg, view, target.caller, base, channel, []);
        if (!answer.cancelled) write(String(answer.body));
      }),
    );
  }

  /** Serves one request of a route (the Koa context's response is the core's from here on). */
  serve(ctx: ParameterizedContext, route: McpRoute): Promise<void> {
    return this.respond(ctx, route.endpoint, (req, res, access) => this.serveRoute(req, res, access, route, ctx.state.requestId as string));
  }

  /**
   * Serves one request of a route straight from `node:http` (the fast path ahead of Koa): the
   * same rules as `serve`, with the access record filled in for the caller's log line.
   */
  serveRaw(req: IncomingMessage, res: ServerResponse, route: McpRoute, requestId: string, access: McpAccess): Promise<void> {
    return this.track(req, res, requestId, access, (rq, rs, a) => this.serveRoute(rq, rs, a, route, requestId));
  }

  /**
   * Takes over a Koa request for an MCP route: the access record, tracking for a graceful stop,
   * and the last-resort error answer (-32603, logged, no detail).
   */
  async respond(
    ctx: ParameterizedContext,
    endpoint: McpAccess['endpoint'],
    work: (req: IncomingMessage, res: ServerResponse, access: McpAccess) => Promise<void> | void,
  ): Promise<void> {
    ctx.respond = false;
    const access: McpAccess = { endpoint };
    ctx.state.mcp = access;
    return this.track(ctx.req, ctx.res, ctx.state.requestId as string, access, work);
  }

  /** Runs one request's work with the last-resort error answer, tracked for a graceful stop. */
  private track(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    access: McpAccess,
    work: (req: IncomingMessage, res: ServerResponse, access: McpAccess) => Promise<void> | void,
  ): Promise<void> {
    // One async frame per request. Work that throws synchronously settles it before `pending`
    // is set: then it is never added.
    // eslint-disable-next-line prefer-const -- read by `run` before it is assigned (a const would be in its TDZ)
    let pending: Promise<void> | undefined;
    let settled = false;
    const run = async (): Promise<void> => {
      try {
        await work(req, res, access);
      } catch (err) {
        this.deps.logger.error({ err, requestId }, 'MCP request failed');
        if (!res.headersSent) sendRpcError(res, 500, RpcCode.InternalError, 'Internal error');
        else res.end();
      } finally {
        settled = true;
        if (pending) this.active.delete(pending);
      }
    };
    pending = run();
    if (!settled) this.active.add(pending);
    return pending;
  }

  /** Replaces the browser origins allowed besides loopback and the public URL (general settings). */
  setAllowedOrigins(origins: readonly string[]): void {
    this.allowedOrigins = new Set(origins.map((x) => new URL(x).origin));
    this.allowedHosts = new Set(origins.map((x) => new URL(x).hostname.toLowerCase()));
  }

  /** Runs `fn` when the core closes (routes unsubscribe from change feeds here). */
  onClose(fn: () => void): void {
    this.closeHooks.push(fn);
  }

  /**
   * First step of a graceful stop: ends the open GET streams (they never finish by themselves)
   * and refuses new sessions and streams (503), while sessions stay alive so the calls in flight
   * on them finish and answer.
   */
  drain(): void {
    this.draining = true;
    this.sessions.closeStreams();
    this.listens.close();
  }

  /** Last step of a stop: ends every session and stream; calls still running are cancelled. */
  close(): void {
    this.draining = true;
    clearInterval(this.keepAlive);
    for (const fn of this.closeHooks.splice(0)) fn();
    this.sessions.close();
    this.subscriptions.close();
    this.exchanges.close();
    this.listens.close();
    this.tasks.close();
    this.deadlines.close();
  }

  /** Resolves once every request being served has answered, or after `maxMs`. */
  async settled(maxMs: number): Promise<void> {
    if (this.active.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.active]), new Promise((resolve) => (timer = setTimeout(resolve, maxMs)))]);
    clearTimeout(timer);
  }

  /**
   * Tells the sessions in these scopes that their tool list changed, on their GET stream (kept for
   * `Last-Event-ID` replay when the stream is down for the moment), and their 2026-07-28 listen
   * streams that their lists changed (each stream gets the kinds it asked for: a change of a
   * bundle or of an upstream's catalog may change its tools, prompts and resources alike).
   */
  announceListChanged(scopes: ReadonlySet<string>): void {
    for (const s of this.sessions.listeners()) if (scopes.has(s.scope)) this.sessions.send(s, LIST_CHANGED);
    this.listens.announce(scopes, ['tools', 'prompts', 'resources']);
  }

  private async serveRoute(
    req: IncomingMessage,
    res: ServerResponse,
    access: McpAccess,
    route: McpRoute,
    requestId: string,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      route.methodNotAllowed(res, requestId);
      return;
    }
    if (!this.originAllowed(req)) {
      sendRpcError(res, 403, RpcCode.Forbidden, 'Forbidden origin');
      return;
    }
    const resolution = await route.resolve(req, access);
    if ('refusal' in resolution) {
      const r = resolution.refusal;
      sendRpcError(res, r.status, r.code, r.message, r.headers ? { headers: { ...r.headers } } : {});
      return;
    }
    const target = resolution.target;
    if (method === 'POST') return this.post(req, res, access, target);
    access.method = method === 'GET' ? 'stream' : 'end_session';
    const protocol = header(req, 'mcp-protocol-version');
    if (protocol === STATELESS_VERSION) {
      sendRpcError(res, 405, RpcCode.InvalidRequest, 'Method not allowed: protocol version 2026-07-28 has no sessions or GET stream', {
        headers: { allow: 'POST' },
      });
      return;
    }
    const accept = header(req, 'accept');
    if (method === 'GET' && accept !== undefined && !accepts(accept, 'text/event-stream')) {
      sendRpcError(res, 406, RpcCode.InvalidRequest, 'Not Acceptable: Accept must list text/event-stream');
      return;
    }
    const session = await this.statefulSession(req, res, target);
    if (!session) return;
    if (method === 'DELETE') {
      this.sessions.end(session.id);
      res.writeHead(204, { ...target.headers });
      res.end();
      return;
    }
    if (this.draining) {
      sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
      return;
    }
    res.writeHead(200, {
      ...target.headers,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'mcp-session-id': session.id,
    });
    res.write(': stream open\n\n');
    this.sessions.attachStream(session, res, header(req, 'last-event-id'));
  }

  /**
   * The legacy session a request names: 404 when it is unknown, ended, or belongs to another scope
   * or credential; 400 for an unsupported protocol header. Without `Mcp-Session-Id`, a POSTed
   * request gets a new implicit session (spec 4.11 rule 3) on the header's version, or 2025-03-26
   * when there is none (the transport's rule for a request that names no version); GET and DELETE
   * answer 400 (a new session has no stream to open and nothing to end).
   */
  private async statefulSession(
    req: IncomingMessage,
    res: ServerResponse,
    target: McpTarget,
    implicit = false,
  ): Promise<Session | undefined> {
    const id = header(req, 'mcp-session-id');
    const protocol = header(req, 'mcp-protocol-version');
    if (protocol !== undefined && !(STATEFUL_VERSIONS as readonly string[]).includes(protocol)) {
      sendRpcError(res, 400, RpcCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
        data: { supported: STATEFUL_VERSIONS, requested: protocol },
      });
      return undefined;
    }
    if (!id) {
      if (!implicit) {
        sendRpcError(res, 400, RpcCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required');
        return undefined;
      }
      if (this.draining) {
        sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
        return undefined;
      }
      return this.sessions.create(target.scope, target.credential, protocol ?? IMPLICIT_VERSION, { implicit: true });
    }
    // Known here: served from memory; otherwise (scale-out) perhaps opened on another instance.
    const session = this.sessions.get(id) ?? (await this.sessions.resolve(id));
    // A session of the legacy HTTP+SSE transport answers on its own stream, never on this one.
    if (!session || session.sseTransport || session.scope !== target.scope || session.credential !== target.credential) {
      sendRpcError(res, 404, RpcCode.SessionNotFound, 'Session not found');
      return undefined;
    }
    return session;
  }

  private async post(req: IncomingMessage, res: ServerResponse, access: McpAccess, target: McpTarget): Promise<void> {
    const contentType = header(req, 'content-type');
    if (!contentType || contentType.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
      sendRpcError(res, 415, RpcCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    // No Accept header means any media type (RFC 9110); one that is present must list both.
    const accept = header(req, 'accept');
    if (accept !== undefined && (!accepts(accept, 'application/json') || !accepts(accept, 'text/event-stream'))) {
      sendRpcError(res, 406, RpcCode.InvalidRequest, 'Not Acceptable: Accept must list application/json and text/event-stream');
      return;
    }
    let raw: Buffer;
    try {
      raw = await readBody(req, this.deps.config.bodyLimitBytes);
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) throw err;
      sendRpcError(res, 413, RpcCode.InvalidRequest, 'Request body too large', { headers: { connection: 'close' } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      sendRpcError(res, 400, RpcCode.ParseError, 'Parse error');
      return;
    }
    const isBatch = Array.isArray(body);
    const messages = (isBatch ? body : [body]) as RpcMessage[];
    if (isBatch && (messages.length === 0 || messages.length > MAX_BATCH)) {
      sendRpcError(res, 400, RpcCode.InvalidRequest, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages`);
      return;
    }
    const kinds = messages.map(messageKind);
    if (kinds.includes('invalid')) {
      sendRpcError(res, 400, RpcCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    const first = messages[0]!;
    access.method = isBatch ? 'batch' : String(first.method ?? 'response').slice(0, MAX_LOGGED_NAME);
    const toolName = first.method === 'tools/call' ? (first.params as { name?: unknown } | undefined)?.name : undefined;
    if (!isBatch && typeof toolName === 'string') access.tool = toolName.slice(0, MAX_LOGGED_NAME);
    // The era is chosen by the request: the 2026-07-28 markers (per-request _meta, or the header
    // without a session) mean stateless; a plain initialize means a legacy session.
    const modern =
      (!isBatch && statelessVersionOf(first) !== undefined) ||
      (header(req, 'mcp-session-id') === undefined && header(req, 'mcp-protocol-version') === STATELESS_VERSION);
    if (modern) return this.postStateless(req, res, access, target, messages, kinds, isBatch);
    if (!isBatch && kinds[0] === 'request' && first.method === 'initialize') return this.initialize(res, access, target, first);

    // Only a body with a request opens an implicit session: notifications alone have nothing to serve.
    const hasRequest = kinds.includes('request');
    if (!hasRequest && header(req, 'mcp-session-id') === undefined) {
      res.writeHead(202, { ...target.headers });
      res.end();
      return;
    }
    const session = await this.statefulSession(req, res, target, true);
    if (!session) return;
    if (isBatch && (session.protocolVersion !== '2025-03-26' || messages.some((m) => m.method === 'initialize'))) {
      sendRpcError(
        res,
        400,
        RpcCode.InvalidRequest,
        'Invalid Request: batches are accepted in protocol version 2025-03-26 only, without initialize',
      );
      return;
    }
    const requests: RpcMessage[] = [];
    messages.forEach((m, i) => {
      if (kinds[i] === 'request') requests.push(m);
      else if (kinds[i] === 'notification') this.onNotification(session, m);
      else this.clientRequests.settle(session, m);
    });
    const headers = { ...target.headers, 'mcp-session-id': session.id };
    if (requests.length === 0) {
      res.writeHead(202, headers);
      res.end();
      return;
    }
    const base: Base = { era: 'stateful', session, protocolVersion: session.protocolVersion };
    await this.dispatch(res, access, target, requests, isBatch, base, headers);
  }

  /** `initialize`: negotiates the version and opens a session bound to the scope and the credential. */
  private async initialize(res: ServerResponse, access: McpAccess, target: McpTarget, msg: RpcMessage): Promise<void> {
    const requested = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof requested !== 'string') {
      sendRpcError(res, 200, RpcCode.InvalidParams, 'Invalid params: protocolVersion must be a string', { id: msg.id });
      return;
    }
    if (this.draining) {
      sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
      return;
    }
    const version = (STATEFUL_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_STATEFUL_VERSION;
    const session = this.sessions.create(target.scope, target.credential, version);
    const capabilities = (msg.params as { capabilities?: unknown } | undefined)?.capabilities;
    if (capabilities && typeof capabilities === 'object' && !Array.isArray(capabilities))
      session.clientCapabilities = capabilities as Record<string, unknown>;
    // Shared before the client learns the id, so its next request may go to any instance.
    await this.sessions.persist(session);
    const base: Base = { era: 'stateful', session, protocolVersion: version };
    await this.dispatch(res, access, target, [msg], false, base, { ...target.headers, 'mcp-session-id': session.id });
  }

  /** A 2026-07-28 request: stateless, versioned by `_meta`, headers must repeat the body. */
  private async postStateless(
    req: IncomingMessage,
    res: ServerResponse,
    access: McpAccess,
    target: McpTarget,
    messages: RpcMessage[],
    kinds: MessageKind[],
    isBatch: boolean,
  ): Promise<void> {
    if (isBatch) {
      sendRpcError(res, 400, RpcCode.InvalidRequest, 'Invalid Request: batches are not accepted in protocol version 2026-07-28');
      return;
    }
    const msg = messages[0]!;
    if (kinds[0] !== 'request') {
      res.writeHead(202, { ...target.headers });
      res.end();
      return;
    }
    const meta = (msg.params as { _meta?: unknown } | undefined)?._meta;
    const version = statelessVersionOf(msg);
    const headerVersion = header(req, 'mcp-protocol-version');
    const mismatch = (message: string) => sendRpcError(res, 400, RpcCode.HeaderMismatch, message, { id: msg.id });
    const invalid = (message: string) => sendRpcError(res, 400, RpcCode.InvalidParams, message, { id: msg.id });
    // Malformed per-request metadata is invalid params; disagreeing headers are a mismatch; only a
    // consistent but unsupported version is -32022.
    if (!meta || typeof meta !== 'object') return invalid('Invalid params: _meta is required in protocol version 2026-07-28');
    if (typeof version !== 'string') return invalid(`Invalid params: _meta.${META_PROTOCOL_VERSION} is required`);
    const capabilities = (meta as Record<string, unknown>)[META_CLIENT_CAPABILITIES];
    if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities))
      return invalid(`Invalid params: _meta.${META_CLIENT_CAPABILITIES} is required`);
    if (headerVersion !== undefined && headerVersion !== version)
      return mismatch('Header mismatch: MCP-Protocol-Version must equal the _meta protocol version');
    if (version !== STATELESS_VERSION) {
      sendRpcError(res, 400, RpcCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
        id: msg.id,
        data: { supported: SUPPORTED_VERSIONS, requested: version },
      });
      return;
    }
    if (headerVersion !== version) return mismatch('Header mismatch: MCP-Protocol-Version must equal the _meta protocol version');
    const method = msg.method as string;
    if (header(req, 'mcp-method') !== method) return mismatch('Header mismatch: Mcp-Method must equal the request method');
    const field = NAMED[method];
    if (field) {
      const name = (msg.params as Record<string, unknown> | undefined)?.[field];
      if (header(req, 'mcp-name') !== name) return mismatch(`Header mismatch: Mcp-Name must equal params.${field}`);
    }
    if (method === 'tools/call') {
      const params = msg.params as Record<string, unknown>;
      const tool = typeof params.name === 'string' ? target.view().byName.get(params.name) : undefined;
      const wrong = tool ? paramHeaderMismatch(req, tool.wire.inputSchema, params.arguments) : undefined;
      if (wrong) return mismatch(wrong);
    }
    if (method === 'subscriptions/listen') return this.listen(res, target, msg);
    // initialize and ping do not exist in the stateless revision.
    if (!METHOD_NAMES.has(method) || method === 'initialize' || method === 'ping') {
      sendRpcError(res, 404, RpcCode.MethodNotFound, 'Method not found', { id: msg.id });
      return;
    }
    const base: Base = { era: 'stateless', session: null, protocolVersion: version, binding: `${target.scope}\n${target.credential}` };
    await this.dispatch(res, access, target, [msg], false, base, { ...target.headers });
  }

  /** `subscriptions/listen`: a notification stream of the target's scope, acknowledged at once. */
  private listen(res: ServerResponse, target: McpTarget, msg: RpcMessage): void {
    let filter;
    try {
      filter = ListenStreams.agreedFilter((msg.params ?? {}) as Record<string, unknown>);
    } catch (err) {
      if (!(err instanceof InvalidFilterError)) throw err;
      sendRpcError(res, 400, RpcCode.InvalidParams, err.message, { id: msg.id });
      return;
    }
    if (this.draining) {
      sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
      return;
    }
    this.listens.open(res, msg.id as string | number, target.scope, target.credential, filter, { ...target.headers });
  }

  /** Runs requests through the JSON-RPC server and writes the answer (JSON, or SSE once streaming). */
  private async dispatch(
    res: ServerResponse,
    access: McpAccess,
    target: McpTarget,
    requests: RpcMessage[],
    isBatch: boolean,
    base: Base,
    headers: Record<string, string>,
  ): Promise<void> {
    const view = target.view();
    const channel = new ResponseChannel(res, headers, this.slowMs, this.deadlines);
    const controllers: Cancellation[] = [];
    if (base.era === 'stateless') {
      // In 2026-07-28 closing the response stream cancels the request.
      res.once('close', () => {
        if (!res.writableFinished) for (const c of controllers) c.abort();
      });
    }
    const all =
      requests.length === 1
        ? [await this.runOne(requests[0]!, view, target.caller, base, channel, controllers)]
        : await Promise.all(requests.map((msg) => this.runOne(msg, view, target.caller, base, channel, controllers)));
    const answers = all.filter((a) => !a.cancelled);
    if (answers.length === 0) {
      // Every request was cancelled: an SSE stream that ends without a response event.
      if (!isBatch) access.rpcError = RpcCode.RequestCancelled;
      channel.abandon();
      return;
    }
    if (!isBatch) {
      const [answer] = answers;
      if (answer!.errorCode !== undefined) access.rpcError = answer!.errorCode;
      channel.finish(answer!.status, answer!.body);
      return;
    }
    if (channel.isStreaming) {
      for (const a of answers) channel.event(String(a.body));
      channel.finish(200, null);
      return;
    }
    const status = answers.some((a) => a.status === 500) ? 500 : 200;
    channel.finish(status, `[${answers.map((a) => String(a.body)).join(',')}]`);
  }

  private async runOne(
    msg: RpcMessage,
    view: McpView,
    caller: McpCaller,
    base: Base,
    channel: AnswerChannel,
    controllers: Cancellation[],
  ): Promise<Answer> {
    const controller = new Cancellation();
    controllers.push(controller);
    const id = msg.id as string | number;
    const idKey = JSON.stringify(id);
    let calls: Map<string, Cancellation> | undefined;
    if (base.session) {
      calls = this.inFlight.get(base.session.id);
      if (!calls) this.inFlight.set(base.session.id, (calls = new Map()));
      calls.set(idKey, controller);
    }
    const meta = (msg.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    const token = meta?.progressToken;
    const write = (m: Record<string, unknown>) => channel.notify(JSON.stringify(m));
    const statelessLevel = base.era === 'stateless' ? meta?.[META_LOG_LEVEL] : undefined;
    const downstream = this.clientRequests.peer({
      era: base.era,
      session: base.session,
      capabilities: base.era === 'stateless' ? (meta?.[META_CLIENT_CAPABILITIES] as Record<string, unknown> | undefined) : undefined,
      logLevel: (LOG_LEVELS as readonly unknown[]).includes(statelessLevel) ? (statelessLevel as LogLevel) : undefined,
      write,
    });
    const ctx: McpContext = {
      view,
      caller,
      era: base.era,
      protocolVersion: base.protocolVersion,
      session: base.session,
      requestId: id,
      progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      signal: controller,
      notify: write,
      downstream,
      clientCapabilities:
        base.era === 'stateless'
          ? (meta?.[META_CLIENT_CAPABILITIES] as Record<string, unknown> | undefined)
          : base.session?.clientCapabilities,
      taskOwner: base.session ? `${base.session.scope}\n${base.session.credential}` : (base.binding ?? ''),
      openStream: () => channel.openStream(),
      streamIfSlow: () => channel.streamIfSlow(),
      internalError: false,
    };
    if (base.binding !== undefined && INPUT_REQUIRED_METHODS.has(msg.method as string)) {
      return this.serveExchange(msg, ctx, base.binding, controller, channel);
    }
    try {
      const response = await this.rpc.receive(msg as JSONRPCRequest, ctx);
      if (msg.method === 'logging/setLevel' && base.session) void this.sessions.persist(base.session);
      // The protocol: a cancelled request SHOULD NOT be answered (clients have forgotten its id).
      if (controller.reason instanceof ClientCancelled) return { status: 200, body: '', cancelled: true };
      const code = response?.error?.code;
      const status = ctx.internalError
        ? 500
        : base.era === 'stateless' && code === RpcCode.MethodNotFound
          ? 404
          : base.era === 'stateless' && code === RpcCode.MissingClientCapability
            ? 400
            : 200;
      const answer = response ?? { id, error: { code: RpcCode.InternalError, message: 'Internal error' } };
      return { status, body: serializeAnswer(answer), ...(answer.error ? { errorCode: answer.error.code } : {}) };
    } finally {
      if (calls?.get(idKey) === controller) calls.delete(idKey);
      if (calls?.size === 0 && base.session) this.inFlight.delete(base.session.id);
    }
  }

  /**
   * A 2026-07-28 `tools/call`, `prompts/get` or `resources/read`: served as a round of an
   * input-required exchange (src/mcp/input-required.ts), so an upstream asking for input gets it
   * through `input_required` results and the caller's retries.
   */
  private async serveExchange(
    msg: RpcMessage,
    ctx: McpContext,
    binding: string,
    signal: CallSignal,
    channel: AnswerChannel,
  ): Promise<Answer> {
    const params = (msg.params ?? {}) as Record<string, unknown>;
    const meta = params._meta as Record<string, unknown> | undefined;
    const capabilities = meta?.[META_CLIENT_CAPABILITIES];
    const target = msg.method === 'resources/read' ? params.uri : params.name;
    const answer = await this.exchanges.serve(
      {
        id: ctx.requestId,
        binding: `${binding}\n${String(msg.method)}\n${String(target)}\n${JSON.stringify(params.arguments ?? null)}`,
        params,
        capabilities: (capabilities ?? {}) as Record<string, unknown>,
        logLevel: (LOG_LEVELS as readonly unknown[]).includes(meta?.[META_LOG_LEVEL]) ? (meta![META_LOG_LEVEL] as LogLevel) : undefined,
        signal,
        write: ctx.notify,
        openStream: () => channel.openStream(),
        streamIfSlow: () => channel.streamIfSlow(),
      },
      async (io) => {
        const run: McpContext = { ...ctx, ...io, internalError: false };
        const response = await this.rpc.receive(msg as JSONRPCRequest, run);
        return { response: response as JsonRpcAnswer | null, internalError: run.internalError };
      },
    );
    // An upstream's result nothing changed is spliced in as the text it arrived as.
    const body = answer.error
      ? JSON.stringify({ jsonrpc: '2.0', id: ctx.requestId, error: answer.error })
      : serializeResponse({ jsonrpc: '2.0', id: ctx.requestId, result: answer.result });
    const status = answer.status === 200 && answer.error?.code === RpcCode.MethodNotFound ? 404 : answer.status;
    return { status, body, ...(answer.error ? { errorCode: answer.error.code } : {}) };
  }

  /**
   * Client notifications: `notifications/initialized` marks the session ready for server-to-client
   * traffic; `notifications/cancelled` aborts the named in-flight request, which then gets no response.
   */
  private onNotification(session: Session, msg: RpcMessage): void {
    if (msg.method === 'notifications/initialized' && !session.initialized) {
      session.initialized = true;
      void this.sessions.persist(session);
    }
    if (msg.method !== 'notifications/cancelled') return;
    const requestId = (msg.params as { requestId?: unknown } | undefined)?.requestId;
    this.inFlight.get(session.id)?.get(JSON.stringify(requestId))?.abort(new ClientCancelled('Request cancelled'));
  }

  private cancelAll(sessionId: string): void {
    const calls = this.inFlight.get(sessionId);
    if (!calls) return;
    this.inFlight.delete(sessionId);
    for (const c of calls.values()) c.abort();
  }

  /**
   * DNS-rebinding protection. An Origin passes when absent, when it is the public URL's origin or
   * a configured one, or when it names a loopback host. "Same host as the Host header" is not
   * enough: a rebound name (evil.example → 127.0.0.1) sends matching Host and Origin. While the
   * server listens on loopback only, the Host header itself must also name loopback (or the
   * public URL's host).
   */
  private originAllowed(req: IncomingMessage): boolean {
    if (this.loopbackOnly) {
      const host = header(req, 'host');
      if (host !== undefined && !this.trustedHost(hostnameOf(host))) return false;
    }
    const origin = header(req, 'origin');
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.origin === 'null') return false;
    if (this.allowedOrigins.has(url.origin) || url.origin === this.publicOrigin) return true;
    return isLoopbackName(url.hostname);
  }

  private trustedHost(hostname: string): boolean {
    return isLoopbackName(hostname) || hostname === this.publicHost || this.allowedHosts.has(hostname);
  }
}

/** The hostname part of a Host header (`name`, `name:port`, `[v6]:port`), lower-cased. */
function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon > 0 ? h.slice(0, colon) : h;
}
