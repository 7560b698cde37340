/**
 * The Streamable HTTP transport the MCP routes (`/mcp/bundle/{bundle_key}`, `/mcp/gateway`) are
 * served by, and where every request enters: stateful sessions (2025-03-26, 2025-06-18,
 * 2025-11-25) and stateless 2026-07-28 on one path, plus the HTTP+SSE transport (2024-11-05).
 *
 * A request flows one way through the pipeline:
 *   router (method) → guard.ts (Origin/Host) → the route (target or refusal) → body.ts (POST body)
 *   → stateless.ts + stateless-headers.ts, or stateful-sessions.ts (the era) → dispatch.ts
 *   (the JSON-RPC methods) → response-channel.ts (the answer).
 * GET and DELETE go from the route to stateful-sessions.ts; the HTTP+SSE paths to sse-transport.ts.
 *
 * Everything a request needs is in memory (the route resolves its target from memory or a cache);
 * the only I/O is the upstream call. Served ahead of body parsing: the transport reads the raw body
 * itself, with the size cap. The router also owns the lifecycle: tracking requests for a graceful
 * stop, draining, closing, and announcing list changes.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ParameterizedContext } from 'koa';
import { DeadlineWheel } from '../../lib/deadline-wheel.js';
import { ClientRequests } from '../client-requests.js';
import { InputExchanges } from '../input-required.js';
import { ListenStreams } from '../listen.js';
import { RpcCode, STATELESS_VERSION } from '../protocol.js';
import { ResourceSubscriptions } from '../resource-subscriptions.js';
import { McpDispatcher } from '../rpc-server.js';
import { SessionStore } from '../sessions.js';
import { TaskRegistry } from '../tasks.js';
import { readPost } from './body.js';
import { RequestDispatch } from './dispatch.js';
import { OriginGuard } from './guard.js';
import { InFlight } from './in-flight.js';
import type { McpTransportDeps } from './options.js';
import { header, sendRpcError } from './responses.js';
import { MAX_LOGGED_NAME, type McpAccess, type McpRoute, type McpTarget } from './route.js';
import { SseTransport } from './sse-transport.js';
import { StatefulSessions } from './stateful-sessions.js';
import { StatelessRequests } from './stateless.js';
import { statelessVersionOf } from './stateless-headers.js';

type Work = (req: IncomingMessage, res: ServerResponse, access: McpAccess) => Promise<void> | void;

const LIST_CHANGED = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';

/** The Streamable HTTP transport both MCP routes share: the entry of every MCP request. */
export class McpTransport {
  readonly sessions: SessionStore;
  readonly serverInfo: { name: string; version: string };
  readonly toolsPageSize: number;
  /** Open `subscriptions/listen` streams (2026-07-28). */
  readonly listens = new ListenStreams();
  /** The callers' tasks (MCP tasks): tool calls run in the background. */
  readonly tasks = new TaskRegistry();
  private readonly guard: OriginGuard;
  private readonly stateful: StatefulSessions;
  private readonly stateless: StatelessRequests;
  private readonly sse: SseTransport;
  /** Server-to-client requests relayed from upstreams, waiting for the client's answer. */
  private readonly clientRequests = new ClientRequests();
  /** In-flight requests of each stateful session, for `notifications/cancelled` and DELETE. */
  private readonly inFlight = new InFlight();
  /** 2026-07-28 requests waiting for the caller's input (input-required results). */
  private readonly exchanges: InputExchanges;
  private readonly subscriptions: ResourceSubscriptions;
  /** The backstop timeouts of upstream calls, on one timer. */
  private readonly deadlines = new DeadlineWheel();
  private readonly keepAlive: NodeJS.Timeout;
  /** Requests being served: a stop waits for them (bounded) so cancelled calls still get their records. */
  private readonly active = new Set<Promise<void>>();
  /** Set by `drain()`: no new sessions or GET streams. */
  private draining = false;
  private readonly closeHooks: (() => void)[] = [];

  constructor(private readonly deps: McpTransportDeps) {
    const o = deps.options ?? {};
    this.sessions = new SessionStore(o.sessionIdleMs ?? 30 * 60_000, Date.now, {
      ...(deps.config.mcpMaxSessionsPerKey !== undefined ? { maxPerScope: deps.config.mcpMaxSessionsPerKey } : {}),
      ...(deps.sharedSessions ? { shared: deps.sharedSessions } : {}),
    });
    this.subscriptions = new ResourceSubscriptions(deps.upstreams, deps.logger);
    this.sessions.onEnd = (s) => {
      this.inFlight.cancelAll(s.id);
      this.clientRequests.endSession(s.id);
      this.subscriptions.endSession(s);
    };
    this.serverInfo = { name: 'toolgate', version: deps.version };
    this.toolsPageSize = o.toolsPageSize ?? 1000;
    this.exchanges = new InputExchanges({
      stateKey: deps.stateKey ?? randomBytes(32),
      waitMs: o.inputWaitMs ?? 30_000,
      gatherMs: o.inputGatherMs ?? 50,
      stateTtlMs: o.requestStateTtlMs ?? 10 * 60_000,
    });
    const dispatch = new RequestDispatch({
      rpc: new McpDispatcher({
        upstreams: deps.upstreams,
        recorder: deps.recorder,
        logger: deps.logger,
        callTimeoutMs: o.callTimeoutMs ?? 120_000,
        deadlines: this.deadlines,
        serverInfo: this.serverInfo,
        subscriptions: this.subscriptions,
        tasks: this.tasks,
        ...(deps.guardrails ? { guardrails: deps.guardrails } : {}),
      }),
      sessions: this.sessions,
      inFlight: this.inFlight,
      clientRequests: this.clientRequests,
      exchanges: this.exchanges,
      slowMs: o.slowResponseMs ?? 1000,
      deadlines: this.deadlines,
    });
    const draining = () => this.draining;
    this.stateful = new StatefulSessions({
      sessions: this.sessions,
      inFlight: this.inFlight,
      clientRequests: this.clientRequests,
      dispatch,
      draining,
    });
    this.stateless = new StatelessRequests({ dispatch, listens: this.listens, draining });
    this.sse = new SseTransport({
      sessions: this.sessions,
      clientRequests: this.clientRequests,
      dispatch,
      stateful: this.stateful,
      bodyLimitBytes: deps.config.bodyLimitBytes,
      draining,
    });
    this.guard = new OriginGuard(deps.config);
    this.keepAlive = setInterval(() => {
      for (const s of this.sessions.streams()) s.stream?.write(': keepalive\n\n');
      this.listens.keepAlive();
    }, 25_000);
    this.keepAlive.unref();
  }

  /** Serves one request of a route (the Koa context's response is the transport's from here on). */
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

  /** Serves the HTTP+SSE transport (2024-11-05) of a route: `…/sse` (GET) and `…/messages` (POST). */
  serveSse(ctx: ParameterizedContext, route: McpRoute, part: 'sse' | 'messages', messagesPath: string): Promise<void> {
    return this.respond(ctx, route.endpoint, async (req, res, access) => {
      const expected = part === 'sse' ? 'GET' : 'POST';
      if (req.method !== expected) {
        route.methodNotAllowed(res, ctx.state.requestId as string, expected);
        return;
      }
      const target = await this.admit(req, res, access, route);
      if (!target) return;
      if (part === 'sse') this.sse.open(req, res, access, target, messagesPath);
      else await this.sse.messages(req, res, access, target, String(ctx.query.sessionId ?? ''));
    });
  }

  /**
   * Takes over a Koa request for an MCP route: the access record, tracking for a graceful stop,
   * and the last-resort error answer (-32603, logged, no detail).
   */
  async respond(ctx: ParameterizedContext, endpoint: McpAccess['endpoint'], work: Work): Promise<void> {
    ctx.respond = false;
    const access: McpAccess = { endpoint };
    ctx.state.mcp = access;
    return this.track(ctx.req, ctx.res, ctx.state.requestId as string, access, work);
  }

  /** Replaces the browser origins allowed besides loopback and the public URL (general settings). */
  setAllowedOrigins(origins: readonly string[]): void {
    this.guard.setAllowedOrigins(origins);
  }

  /** Runs `fn` when the transport closes (routes unsubscribe from change feeds here). */
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

  /** Runs one request's work with the last-resort error answer, tracked for a graceful stop. */
  private track(req: IncomingMessage, res: ServerResponse, requestId: string, access: McpAccess, work: Work): Promise<void> {
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

  /** The guard and the route: the request's target, or undefined once refused (403, or the route's refusal). */
  private async admit(req: IncomingMessage, res: ServerResponse, access: McpAccess, route: McpRoute): Promise<McpTarget | undefined> {
    if (!this.guard.allows(req)) {
      sendRpcError(res, 403, RpcCode.Forbidden, 'Forbidden origin');
      return undefined;
    }
    const resolution = await route.resolve(req, access);
    if ('refusal' in resolution) {
      const r = resolution.refusal;
      sendRpcError(res, r.status, r.code, r.message, r.headers ? { headers: { ...r.headers } } : {});
      return undefined;
    }
    return resolution.target;
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
    const target = await this.admit(req, res, access, route);
    if (!target) return;
    if (method === 'POST') return this.post(req, res, access, target);
    access.method = method === 'GET' ? 'stream' : 'end_session';
    return this.stateful.streamOrEnd(req, res, target, method);
  }

  /** A POST: its body read, its access record filled in, then served by the era it chooses. */
  private async post(req: IncomingMessage, res: ServerResponse, access: McpAccess, target: McpTarget): Promise<void> {
    const posted = await readPost(req, res, this.deps.config.bodyLimitBytes);
    if (!posted) return;
    const { messages, isBatch } = posted;
    const first = messages[0]!;
    access.method = isBatch ? 'batch' : String(first.method ?? 'response').slice(0, MAX_LOGGED_NAME);
    const toolName = first.method === 'tools/call' ? (first.params as { name?: unknown } | undefined)?.name : undefined;
    if (!isBatch && typeof toolName === 'string') access.tool = toolName.slice(0, MAX_LOGGED_NAME);
    // The era is chosen by the request: the 2026-07-28 markers (per-request _meta, or the header
    // without a session) mean stateless; anything else (a plain initialize) is a stateful session.
    const stateless =
      (!isBatch && statelessVersionOf(first) !== undefined) ||
      (header(req, 'mcp-session-id') === undefined && header(req, 'mcp-protocol-version') === STATELESS_VERSION);
    if (stateless) return this.stateless.post(req, res, access, target, posted);
    return this.stateful.post(req, res, access, target, posted);
  }
}
