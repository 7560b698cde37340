import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCRequest, JSONRPCServer } from 'json-rpc-2.0';
import type { Middleware } from 'koa';
import type { Config } from '../config.js';
import { isLoopbackName } from '../lib/host-names.js';
import type { Logger } from '../logger.js';
import type { BundlesRegistry, LiveBundle } from '../services/bundles-registry.js';
import type { CatalogView, UpstreamCaller } from '../domain/catalog.js';
import { BundleViews } from './bundle-view.js';
import type { CallRecorder } from './call-recorder.js';
import type { McpContext } from './context.js';
import { accepts, BodyTooLargeError, readBody, ResponseChannel, sendJson, sendRpcError, sseEvent } from './http-transport.js';
import {
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  messageKind,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  MODERN_VERSION,
  RpcCode,
  serializeResponse,
  SUPPORTED_VERSIONS,
  type Era,
  type MessageKind,
  type RpcMessage,
} from './protocol.js';
import { createRpcServer, METHOD_NAMES } from './rpc-server.js';
import { SessionStore, type Session } from './sessions.js';

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
}

export interface BundleEndpointDeps {
  registry: BundlesRegistry;
  catalog: CatalogView;
  upstreams: UpstreamCaller;
  recorder: CallRecorder;
  logger: Logger;
  config: Pick<Config, 'allowedOrigins' | 'publicUrl' | 'bodyLimitBytes' | 'host'>;
  version: string;
  options?: McpOptions;
}

/**
 * What the access log line of one MCP request says: never the bundle key (the path), never
 * argument values. Filled in while the request is served; the app writes the line.
 */
export interface McpAccess {
  endpoint: 'bundle' | 'gateway';
  /** Bundle id, once the key resolved to a bundle. */
  bundle?: string;
  /** JSON-RPC method (`batch` for a batch), or `stream` / `end_session` / `info` for GET / DELETE / `/info`. */
  method?: string;
  /** The tool name the caller asked for (`tools/call`). */
  tool?: string;
  /** JSON-RPC error code of the answer, when it is an error (single requests). */
  rpcError?: number;
}

const BUNDLE_PATH = /^\/mcp\/bundle\/([^/]+)(\/info)?\/?$/;
/** Longest method or tool name copied into a log line. */
const MAX_LOGGED_NAME = 128;
const LIST_CHANGED = sseEvent('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
/** Methods whose 2026-07-28 requests must name their target in `Mcp-Name`. */
const NAMED: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
const MAX_BATCH = 100;

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function modernVersionOf(msg: RpcMessage): unknown {
  const meta = (msg.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta && typeof meta === 'object' ? meta[META_PROTOCOL_VERSION] : undefined;
}

/**
 * `/mcp/bundle/{bundle_key}`: Streamable HTTP for one bundle, legacy sessions (2025-03-26,
 * 2025-06-18, 2025-11-25) and stateless 2026-07-28 on one path, plus `/info`. Everything a request
 * needs (bundle by key hash, compiled view, session) is in memory; the only I/O is the upstream
 * call. Mounted ahead of body parsing: it reads the raw body itself, with the size cap.
 */
export class BundleEndpoint {
  readonly sessions: SessionStore;
  private readonly views: BundleViews;
  private readonly rpc: JSONRPCServer<McpContext>;
  /** In-flight requests of each legacy session, for `notifications/cancelled` and DELETE. */
  private readonly inFlight = new Map<string, Map<string, AbortController>>();
  private readonly allowedOrigins: Set<string>;
  private readonly publicOrigin: string | undefined;
  private readonly publicHost: string | undefined;
  private readonly allowedHosts: Set<string>;
  /** True when the server listens on a loopback address only (the default). */
  private readonly loopbackOnly: boolean;
  private readonly keepAlive: NodeJS.Timeout;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly slowMs: number;
  /** Requests being served: a stop waits for them (bounded) so cancelled calls still get their records. */
  private readonly active = new Set<Promise<void>>();
  /** Set by `drain()`: no new sessions or GET streams. */
  private draining = false;
  /** The access log record of each response being written. */
  private readonly access = new WeakMap<ServerResponse, McpAccess>();

  constructor(private readonly deps: BundleEndpointDeps) {
    const o = deps.options ?? {};
    this.sessions = new SessionStore(o.sessionIdleMs ?? 30 * 60_000);
    this.sessions.onEnd = (s) => this.cancelAll(s.id);
    const serverInfo = { name: 'toolgate', version: deps.version };
    this.views = new BundleViews(deps.catalog, o.toolsPageSize ?? 1000, serverInfo);
    this.rpc = createRpcServer({
      upstreams: deps.upstreams,
      recorder: deps.recorder,
      logger: deps.logger,
      callTimeoutMs: o.callTimeoutMs ?? 120_000,
      serverInfo,
    });
    this.slowMs = o.slowResponseMs ?? 1000;
    this.allowedOrigins = new Set(deps.config.allowedOrigins.map((x) => new URL(x).origin));
    this.publicOrigin = deps.config.publicUrl ? new URL(deps.config.publicUrl).origin : undefined;
    this.publicHost = deps.config.publicUrl ? new URL(deps.config.publicUrl).hostname.toLowerCase() : undefined;
    this.allowedHosts = new Set(deps.config.allowedOrigins.map((x) => new URL(x).hostname.toLowerCase()));
    this.loopbackOnly = isLoopbackName(deps.config.host);
    this.keepAlive = setInterval(() => {
      for (const s of this.sessions.streams()) s.stream?.write(': keepalive\n\n');
    }, 25_000);
    this.keepAlive.unref();
    this.unsubscribe.push(
      deps.registry.onChange((change) => {
        if (change.kind === 'deleted') {
          this.views.forget(change.bundleId);
          this.sessions.endForBundle(change.bundleId);
          return;
        }
        const bundle = deps.registry.get(change.bundleId);
        if (change.keyChanged && bundle) this.sessions.endForBundle(change.bundleId, bundle.keyHash);
        this.announceListChanged(new Set([change.bundleId]));
      }),
      deps.catalog.onChange((serverIds) => {
        const affected = deps.registry.bundlesOfServers(new Set(serverIds));
        if (affected.length) this.announceListChanged(new Set(affected.map((b) => b.id)));
      }),
    );
  }

  /** The Koa middleware: serves `/mcp/bundle/…`, passes everything else on. */
  middleware(): Middleware {
    return async (ctx, next) => {
      const match = BUNDLE_PATH.exec(ctx.path);
      if (!match) return next();
      ctx.respond = false;
      const access: McpAccess = { endpoint: 'bundle' };
      ctx.state.mcp = access;
      this.access.set(ctx.res, access);
      const work = this.handle(ctx.req, ctx.res, match, ctx.state.requestId as string);
      this.active.add(work);
      try {
        await work;
      } finally {
        this.active.delete(work);
      }
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse, match: RegExpExecArray, requestId: string): Promise<void> {
    try {
      let key: string;
      try {
        key = decodeURIComponent(match[1]!);
      } catch {
        key = '';
      }
      if (match[2]) {
        this.access.get(res)!.method = 'info';
        this.info(req, res, key, requestId);
      } else await this.serve(req, res, key);
    } catch (err) {
      this.deps.logger.error({ err, requestId }, 'MCP request failed');
      if (!res.headersSent) sendRpcError(res, 500, RpcCode.InternalError, 'Internal error');
      else res.end();
    }
  }

  /**
   * First step of a graceful stop: ends the open GET streams (they never finish by themselves)
   * and refuses new sessions and streams (503), while sessions stay alive so the calls in flight
   * on them finish and answer.
   */
  drain(): void {
    this.draining = true;
    this.sessions.closeStreams();
  }

  /** Last step of a stop: ends every session and stream; calls still running are cancelled. */
  close(): void {
    this.draining = true;
    clearInterval(this.keepAlive);
    for (const u of this.unsubscribe) u();
    this.sessions.close();
  }

  /** Resolves once every request being served has answered, or after `maxMs`. */
  async settled(maxMs: number): Promise<void> {
    if (this.active.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.active]), new Promise((resolve) => (timer = setTimeout(resolve, maxMs)))]);
    clearTimeout(timer);
  }

  private async serve(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      this.sendErrorResponse(res, 405, 'method_not_allowed', 'Method not allowed on this path', { allow: 'GET, POST, DELETE' });
      return;
    }
    if (!this.originAllowed(req)) {
      sendRpcError(res, 403, RpcCode.Forbidden, 'Forbidden origin');
      return;
    }
    const bundle = key.length >= 1 && key.length <= 255 ? this.deps.registry.byKey(key) : undefined;
    if (!bundle) {
      sendRpcError(res, 404, RpcCode.SessionNotFound, 'Bundle not found');
      return;
    }
    const access = this.access.get(res)!;
    access.bundle = bundle.id;
    if (method === 'POST') return this.post(req, res, bundle);
    access.method = method === 'GET' ? 'stream' : 'end_session';
    const protocol = header(req, 'mcp-protocol-version');
    if (protocol === MODERN_VERSION) {
      sendRpcError(res, 405, RpcCode.InvalidRequest, 'Method not allowed: protocol version 2026-07-28 has no sessions or GET stream', {
        headers: { allow: 'POST' },
      });
      return;
    }
    if (method === 'GET' && !accepts(header(req, 'accept'), 'text/event-stream')) {
      sendRpcError(res, 406, RpcCode.InvalidRequest, 'Not Acceptable: Accept must list text/event-stream');
      return;
    }
    const session = this.legacySession(req, res, bundle);
    if (!session) return;
    if (method === 'DELETE') {
      this.sessions.end(session.id);
      res.writeHead(204);
      res.end();
      return;
    }
    if (this.draining) {
      sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'mcp-session-id': session.id });
    res.write(': stream open\n\n');
    this.sessions.attachStream(session, res);
  }

  /**
   * The legacy session a request names: 400 without `Mcp-Session-Id`, 404 when it is unknown,
   * ended, or belongs to another bundle or an older key; 400 for an unsupported protocol header.
   */
  private legacySession(req: IncomingMessage, res: ServerResponse, bundle: LiveBundle): Session | undefined {
    const id = header(req, 'mcp-session-id');
    if (!id) {
      sendRpcError(res, 400, RpcCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const session = this.sessions.get(id);
    if (!session || session.bundleId !== bundle.id || session.keyHash !== bundle.keyHash) {
      sendRpcError(res, 404, RpcCode.SessionNotFound, 'Session not found');
      return undefined;
    }
    const protocol = header(req, 'mcp-protocol-version');
    if (protocol !== undefined && !(LEGACY_VERSIONS as readonly string[]).includes(protocol)) {
      sendRpcError(res, 400, RpcCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
        data: { supported: LEGACY_VERSIONS, requested: protocol },
      });
      return undefined;
    }
    return session;
  }

  private async post(req: IncomingMessage, res: ServerResponse, bundle: LiveBundle): Promise<void> {
    const contentType = header(req, 'content-type');
    if (!contentType || contentType.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
      sendRpcError(res, 415, RpcCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    const accept = header(req, 'accept');
    if (!accepts(accept, 'application/json') || !accepts(accept, 'text/event-stream')) {
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
    const access = this.access.get(res)!;
    access.method = isBatch ? 'batch' : String(first.method ?? 'response').slice(0, MAX_LOGGED_NAME);
    const toolName = first.method === 'tools/call' ? (first.params as { name?: unknown } | undefined)?.name : undefined;
    if (!isBatch && typeof toolName === 'string') access.tool = toolName.slice(0, MAX_LOGGED_NAME);
    // The era is chosen by the request: the 2026-07-28 markers (per-request _meta, or the header
    // without a session) mean stateless; a plain initialize means a legacy session.
    const modern =
      (!isBatch && modernVersionOf(first) !== undefined) ||
      (header(req, 'mcp-session-id') === undefined && header(req, 'mcp-protocol-version') === MODERN_VERSION);
    if (modern) return this.postModern(req, res, bundle, messages, kinds, isBatch);
    if (!isBatch && kinds[0] === 'request' && first.method === 'initialize') return this.initialize(req, res, bundle, first);

    const session = this.legacySession(req, res, bundle);
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
    });
    const headers = { 'mcp-session-id': session.id };
    if (requests.length === 0) {
      res.writeHead(202, headers);
      res.end();
      return;
    }
    await this.dispatch(res, bundle, requests, isBatch, { era: 'legacy', session, protocolVersion: session.protocolVersion }, headers);
  }

  /** `initialize`: negotiates the version and opens a session bound to the bundle and its key. */
  private async initialize(_req: IncomingMessage, res: ServerResponse, bundle: LiveBundle, msg: RpcMessage): Promise<void> {
    const requested = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof requested !== 'string') {
      sendRpcError(res, 200, RpcCode.InvalidParams, 'Invalid params: protocolVersion must be a string', { id: msg.id });
      return;
    }
    if (this.draining) {
      sendRpcError(res, 503, RpcCode.InternalError, 'Server is shutting down', { headers: { 'retry-after': '1', connection: 'close' } });
      return;
    }
    const version = (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_LEGACY_VERSION;
    const session = this.sessions.create(bundle.id, bundle.keyHash, version);
    await this.dispatch(res, bundle, [msg], false, { era: 'legacy', session, protocolVersion: version }, { 'mcp-session-id': session.id });
  }

  /** A 2026-07-28 request: stateless, versioned by `_meta`, headers must repeat the body. */
  private async postModern(
    req: IncomingMessage,
    res: ServerResponse,
    bundle: LiveBundle,
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
      res.writeHead(202);
      res.end();
      return;
    }
    const meta = (msg.params as { _meta?: unknown } | undefined)?._meta;
    const version = modernVersionOf(msg);
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
    if (version !== MODERN_VERSION) {
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
      const target = (msg.params as Record<string, unknown> | undefined)?.[field];
      if (header(req, 'mcp-name') !== target) return mismatch(`Header mismatch: Mcp-Name must equal params.${field}`);
    }
    // initialize and ping do not exist in the stateless revision.
    if (!METHOD_NAMES.has(method) || method === 'initialize' || method === 'ping') {
      sendRpcError(res, 404, RpcCode.MethodNotFound, 'Method not found', { id: msg.id });
      return;
    }
    await this.dispatch(res, bundle, [msg], false, { era: 'modern', session: null, protocolVersion: version }, {});
  }

  /** Runs requests through the JSON-RPC server and writes the answer (JSON, or SSE once streaming). */
  private async dispatch(
    res: ServerResponse,
    bundle: LiveBundle,
    requests: RpcMessage[],
    isBatch: boolean,
    base: { era: Era; session: Session | null; protocolVersion: string },
    headers: Record<string, string>,
  ): Promise<void> {
    const view = this.views.of(bundle);
    const channel = new ResponseChannel(res, headers, this.slowMs);
    const controllers: AbortController[] = [];
    if (base.era === 'modern') {
      // In 2026-07-28 closing the response stream cancels the request.
      res.once('close', () => {
        if (!res.writableFinished) for (const c of controllers) c.abort();
      });
    }
    const answers = await Promise.all(requests.map((msg) => this.runOne(msg, view, base, channel, controllers)));
    if (!isBatch) {
      const [answer] = answers;
      if (answer!.errorCode !== undefined) this.access.get(res)!.rpcError = answer!.errorCode;
      channel.finish(answer!.status, answer!.body);
      return;
    }
    if (channel.isStreaming) {
      for (const a of answers) channel.event(a.body);
      channel.finish(200, null);
      return;
    }
    const status = answers.some((a) => a.status === 500) ? 500 : 200;
    channel.finish(status, `[${answers.map((a) => a.body).join(',')}]`);
  }

  private async runOne(
    msg: RpcMessage,
    view: ReturnType<BundleViews['of']>,
    base: { era: Era; session: Session | null; protocolVersion: string },
    channel: ResponseChannel,
    controllers: AbortController[],
  ): Promise<{ status: number; body: string; errorCode?: number }> {
    const controller = new AbortController();
    controllers.push(controller);
    const id = msg.id as string | number;
    const idKey = JSON.stringify(id);
    let calls: Map<string, AbortController> | undefined;
    if (base.session) {
      calls = this.inFlight.get(base.session.id);
      if (!calls) this.inFlight.set(base.session.id, (calls = new Map()));
      calls.set(idKey, controller);
    }
    const token = (msg.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;
    const ctx: McpContext = {
      view,
      era: base.era,
      protocolVersion: base.protocolVersion,
      session: base.session,
      requestId: id,
      progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      signal: controller.signal,
      notify: (m) => channel.notify(JSON.stringify(m)),
      openStream: () => channel.openStream(),
      streamIfSlow: () => channel.streamIfSlow(),
      internalError: false,
    };
    try {
      const response = await this.rpc.receive(msg as JSONRPCRequest, ctx);
      const status = ctx.internalError ? 500 : base.era === 'modern' && response?.error?.code === RpcCode.MethodNotFound ? 404 : 200;
      const answer = response ?? { id, error: { code: RpcCode.InternalError, message: 'Internal error' } };
      return { status, body: serializeResponse(answer), ...(answer.error ? { errorCode: answer.error.code } : {}) };
    } finally {
      if (calls?.get(idKey) === controller) calls.delete(idKey);
      if (calls?.size === 0 && base.session) this.inFlight.delete(base.session.id);
    }
  }

  /** Client notifications: `notifications/cancelled` aborts the named in-flight request. */
  private onNotification(session: Session, msg: RpcMessage): void {
    if (msg.method !== 'notifications/cancelled') return;
    const requestId = (msg.params as { requestId?: unknown } | undefined)?.requestId;
    this.inFlight.get(session.id)?.get(JSON.stringify(requestId))?.abort();
  }

  private cancelAll(sessionId: string): void {
    const calls = this.inFlight.get(sessionId);
    if (!calls) return;
    this.inFlight.delete(sessionId);
    for (const c of calls.values()) c.abort();
  }

  /** Tells the open GET streams of these bundles that their tool list changed. */
  private announceListChanged(bundleIds: ReadonlySet<string>): void {
    for (const s of this.sessions.streams()) if (bundleIds.has(s.bundleId)) s.stream?.write(LIST_CHANGED);
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

  /** `GET /mcp/bundle/{bundle_key}/info`: plain JSON about the bundle behind a key. */
  private info(req: IncomingMessage, res: ServerResponse, key: string, requestId: string): void {
    if (req.method !== 'GET') {
      this.sendErrorResponse(res, 405, 'method_not_allowed', 'Method not allowed on this path', { allow: 'GET' }, requestId);
      return;
    }
    const bundle = key.length >= 1 && key.length <= 255 ? this.deps.registry.byKey(key) : undefined;
    if (!bundle) {
      this.sendErrorResponse(res, 404, 'not_found', 'Unknown bundle key', {}, requestId);
      return;
    }
    const base = this.deps.config.publicUrl ?? `http://${header(req, 'host') ?? 'localhost'}`;
    const body = {
      name: bundle.name,
      description: bundle.description,
      tool_count: this.views.of(bundle).tools.length,
      endpoint: `${base.replace(/\/+$/, '')}/mcp/bundle/${encodeURIComponent(key)}`,
      protocol_versions: SUPPORTED_VERSIONS,
      server_version: this.deps.version,
    };
    sendJson(res, 200, JSON.stringify(body));
  }

  /** An ErrorResponse (the REST error shape) for the non-JSON-RPC answers. */
  private sendErrorResponse(
    res: ServerResponse,
    status: number,
    code: string,
    detail: string,
    headers: Record<string, string>,
    requestId = String(res.getHeader('x-request-id') ?? ''),
  ): void {
    sendJson(res, status, JSON.stringify({ detail, code, request_id: requestId }), headers);
  }
}

/** The hostname part of a Host header (`name`, `name:port`, `[v6]:port`), lower-cased. */
function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon > 0 ? h.slice(0, colon) : h;
}
