/**
 * The stateful era (2025-03-26, 2025-06-18, 2025-11-25 with `Mcp-Session-Id`): after the body is
 * read (body.ts), `initialize` opens a session, other POSTs are served in the session they name (or
 * in a new implicit one), client notifications and answers are taken, and the requests go on to
 * dispatch.ts. GET opens the session's event stream; DELETE ends the session.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientRequests } from '../client-requests.js';
import { LATEST_STATEFUL_VERSION, RpcCode, STATEFUL_VERSIONS, STATELESS_VERSION, type RpcMessage } from '../protocol.js';
import type { Session, SessionStore } from '../sessions.js';
import type { PostedMessages } from './body.js';
import { acceptsEventStream } from './body.js';
import type { RequestBase, RequestDispatch } from './dispatch.js';
import type { InFlight } from './in-flight.js';
import { PostStreams, primingEvent } from '../stream-logs.js';
import { header, refuseShuttingDown, sendRpcError } from './responses.js';
import type { McpAccess, McpTarget } from './route.js';

/** The version of an implicit session whose request names none (the transport's default assumption). */
const IMPLICIT_VERSION = '2025-03-26';

export interface StatefulSessionsDeps {
  readonly sessions: SessionStore;
  readonly inFlight: InFlight;
  readonly clientRequests: ClientRequests;
  readonly dispatch: RequestDispatch;
  /** True once the transport drains: no new sessions or streams. */
  readonly draining: () => boolean;
}

export class StatefulSessions {
  constructor(private readonly deps: StatefulSessionsDeps) {}

  /** A stateful POST: `initialize`, or messages served in the session named by `Mcp-Session-Id` (or a new implicit one). */
  async post(req: IncomingMessage, res: ServerResponse, access: McpAccess, target: McpTarget, posted: PostedMessages): Promise<void> {
    const { messages, kinds, isBatch } = posted;
    const first = messages[0]!;
    if (!isBatch && kinds[0] === 'request' && first.method === 'initialize') return this.initialize(res, access, target, first);

    // Only a body with a request opens an implicit session: notifications alone have nothing to serve.
    const hasRequest = kinds.includes('request');
    if (!hasRequest && header(req, 'mcp-session-id') === undefined) {
      res.writeHead(202, { ...target.headers });
      res.end();
      return;
    }
    const session = await this.sessionOf(req, res, target, true);
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
      else this.deps.clientRequests.settle(session, m);
    });
    const headers = { ...target.headers, 'mcp-session-id': session.id };
    if (requests.length === 0) {
      res.writeHead(202, headers);
      res.end();
      return;
    }
    const base: RequestBase = { era: 'stateful', session, protocolVersion: session.protocolVersion };
    await this.deps.dispatch.dispatch(res, access, target, requests, isBatch, base, headers);
  }

  /** GET (the session's event stream) and DELETE (the end of the session); neither exists in 2026-07-28. */
  async streamOrEnd(req: IncomingMessage, res: ServerResponse, target: McpTarget, method: 'GET' | 'DELETE'): Promise<void> {
    if (header(req, 'mcp-protocol-version') === STATELESS_VERSION) {
      sendRpcError(res, 405, RpcCode.InvalidRequest, 'Method not allowed: protocol version 2026-07-28 has no sessions or GET stream', {
        headers: { allow: 'POST' },
      });
      return;
    }
    if (method === 'GET' && !acceptsEventStream(req, res)) return;
    const session = await this.sessionOf(req, res, target);
    if (!session) return;
    if (method === 'DELETE') {
      this.deps.sessions.end(session.id);
      res.writeHead(204, { ...target.headers });
      res.end();
      return;
    }
    if (this.deps.draining()) return refuseShuttingDown(res);
    const lastEventId = header(req, 'last-event-id');
    const streamHeaders = {
      ...target.headers,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'mcp-session-id': session.id,
    };
    if (lastEventId !== undefined && PostStreams.names(lastEventId)) {
      // The resumption of a POST response stream whose connection dropped: what it missed, then
      // the rest until its response. It is not the session's GET stream (that one stays as it is).
      const found = session.postStreams?.find(lastEventId);
      if (!found) {
        sendRpcError(res, 400, RpcCode.InvalidRequest, 'Invalid Request: Last-Event-ID names a stream this session can no longer resume');
        return;
      }
      res.writeHead(200, streamHeaders);
      found.log.resume(res, found.afterSeq);
      return;
    }
    res.writeHead(200, streamHeaders);
    res.write(': stream open\n\n');
    this.deps.sessions.attachStream(session, res, lastEventId);
    // The priming event names the latest event (after what was replayed): a reconnect resumes there.
    res.write(primingEvent(String(session.events?.latestId ?? 0)));
  }

  /**
   * Client notifications: `notifications/initialized` marks the session ready for server-to-client
   * traffic; `notifications/cancelled` aborts the named in-flight request, which then gets no response.
   */
  onNotification(session: Session, msg: RpcMessage): void {
    if (msg.method === 'notifications/initialized' && !session.initialized) {
      session.initialized = true;
      void this.deps.sessions.persist(session);
    }
    if (msg.method !== 'notifications/cancelled') return;
    this.deps.inFlight.cancel(session.id, (msg.params as { requestId?: unknown } | undefined)?.requestId);
  }

  /** `initialize`: negotiates the version and opens a session bound to the scope and the credential. */
  private async initialize(res: ServerResponse, access: McpAccess, target: McpTarget, msg: RpcMessage): Promise<void> {
    const requested = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof requested !== 'string') {
      sendRpcError(res, 200, RpcCode.InvalidParams, 'Invalid params: protocolVersion must be a string', { id: msg.id });
      return;
    }
    if (this.deps.draining()) return refuseShuttingDown(res);
    const version = (STATEFUL_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_STATEFUL_VERSION;
    const session = this.deps.sessions.create(target.scope, target.credential, version);
    const capabilities = (msg.params as { capabilities?: unknown } | undefined)?.capabilities;
    if (capabilities && typeof capabilities === 'object' && !Array.isArray(capabilities))
      session.clientCapabilities = capabilities as Record<string, unknown>;
    // Shared before the client learns the id, so its next request may go to any instance.
    await this.deps.sessions.persist(session);
    const base: RequestBase = { era: 'stateful', session, protocolVersion: version };
    await this.deps.dispatch.dispatch(res, access, target, [msg], false, base, { ...target.headers, 'mcp-session-id': session.id });
  }

  /**
   * The stateful session a request names: 404 when it is unknown, ended, or belongs to another scope
   * or credential; 400 for an unsupported protocol header. Without `Mcp-Session-Id`, a POSTed
   * request gets a new implicit session (spec 4.11 rule 3) on the header's version, or 2025-03-26
   * when there is none (the transport's rule for a request that names no version); GET and DELETE
   * answer 400 (a new session has no stream to open and nothing to end).
   */
  private async sessionOf(req: IncomingMessage, res: ServerResponse, target: McpTarget, implicit = false): Promise<Session | undefined> {
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
      if (this.deps.draining()) {
        refuseShuttingDown(res);
        return undefined;
      }
      return this.deps.sessions.create(target.scope, target.credential, protocol ?? IMPLICIT_VERSION, { implicit: true });
    }
    // Known here: served from memory; otherwise (scale-out) perhaps opened on another instance.
    const session = this.deps.sessions.get(id) ?? (await this.deps.sessions.resolve(id));
    // A session of the HTTP+SSE transport answers on its own stream, never on this one.
    if (!session || session.sseTransport || session.scope !== target.scope || session.credential !== target.credential) {
      sendRpcError(res, 404, RpcCode.SessionNotFound, 'Session not found');
      return undefined;
    }
    return session;
  }
}
