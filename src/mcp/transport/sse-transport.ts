/**
 * The HTTP+SSE transport of protocol version 2024-11-05, for clients that speak only it: `GET …/sse`
 * opens a session and its event stream, announcing `messagesPath?sessionId=…` in an `endpoint`
 * event; `POST` there carries the client's messages (202), whose responses travel on the stream.
 * The session ends with its stream. Reached from the router after the guard and the route; its
 * requests go on to dispatch.ts like any other. Server-to-client requests relayed from upstreams
 * (sampling, elicitation, roots, for the capabilities `initialize` declared) go out on the stream
 * like any message; the client POSTs its answers to the messages URL, where they settle the
 * waiting upstream request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LATEST_STATEFUL_VERSION, messageKind, RpcCode, SSE_TRANSPORT_VERSIONS, type RpcMessage } from '../protocol.js';
import type { ClientRequests } from '../client-requests.js';
import type { SessionStore } from '../sessions.js';
import { acceptsEventStream, isJsonContent, MAX_BATCH, readJson } from './body.js';
import type { RequestBase, RequestDispatch } from './dispatch.js';
import type { AnswerChannel } from './response-channel.js';
import { refuseShuttingDown, sendRpcError, sseEvent } from './responses.js';
import { MAX_LOGGED_NAME, type McpAccess, type McpTarget } from './route.js';
import type { StatefulSessions } from './stateful-sessions.js';

export interface SseTransportDeps {
  readonly sessions: SessionStore;
  /** Where the client's answers to relayed server-to-client requests go (sampling, elicitation, roots). */
  readonly clientRequests: ClientRequests;
  readonly dispatch: RequestDispatch;
  /** Where the client's notifications (initialized, cancelled) are taken, as on the Streamable HTTP transport. */
  readonly stateful: StatefulSessions;
  readonly bodyLimitBytes: number;
  /** True once the transport drains: no new sessions. */
  readonly draining: () => boolean;
}

export class SseTransport {
  constructor(private readonly deps: SseTransportDeps) {}

  /** `GET …/sse`: a new session and its event stream. */
  open(req: IncomingMessage, res: ServerResponse, access: McpAccess, target: McpTarget, messagesPath: string): void {
    access.method = 'stream';
    if (!acceptsEventStream(req, res)) return;
    if (this.deps.draining()) return refuseShuttingDown(res);
    const { sessions } = this.deps;
    const session = sessions.create(target.scope, target.credential, LATEST_STATEFUL_VERSION, { sseTransport: true });
    res.writeHead(200, { ...target.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    res.write(`event: endpoint\ndata: ${messagesPath}?sessionId=${session.id}\n\n`);
    sessions.attachStream(session, res);
    res.once('close', () => sessions.end(session.id));
  }

  /** `POST …/messages?sessionId=…`: accepted at once (202); responses go on the session's stream. */
  async messages(req: IncomingMessage, res: ServerResponse, access: McpAccess, target: McpTarget, sessionId: string): Promise<void> {
    const session = sessionId ? this.deps.sessions.get(sessionId) : undefined;
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
    if (!isJsonContent(req, res)) return;
    const body = await readJson(req, res, this.deps.bodyLimitBytes);
    if (!body) return;
    const isBatch = Array.isArray(body.json);
    const messages = (isBatch ? body.json : [body.json]) as RpcMessage[];
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
      else if (kinds[i] === 'notification') this.deps.stateful.onNotification(session, m);
      // The client's answer to a request an upstream sent it (on this session's stream).
      else this.deps.clientRequests.settle(session, m);
    });
    await Promise.all(
      requests.map(async (msg) => {
        if (msg.method === 'initialize') {
          const requested = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
          session.protocolVersion =
            typeof requested === 'string' && SSE_TRANSPORT_VERSIONS.includes(requested) ? requested : LATEST_STATEFUL_VERSION;
          // What the client declared decides what upstreams may ask it (sampling, elicitation, roots).
          const capabilities = (msg.params as { capabilities?: unknown } | undefined)?.capabilities;
          if (capabilities && typeof capabilities === 'object' && !Array.isArray(capabilities))
            session.clientCapabilities = capabilities as Record<string, unknown>;
        }
        const base: RequestBase = { era: 'stateful', session, protocolVersion: session.protocolVersion };
        const answer = await this.deps.dispatch.runOne(msg, view, target.caller, base, channel, [], { req, target });
        if (!answer.cancelled) write(String(answer.body));
      }),
    );
  }
}
