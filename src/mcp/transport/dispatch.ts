/**
 * Dispatch, the last step of a request's path: its requests run through the JSON-RPC methods
 * (rpc-server.ts) with their context (view, caller, era, session, cancellation, the client as
 * upstreams relay to it), and the answer is written (JSON, or SSE once streaming). A 2026-07-28
 * tool call, prompt or resource read runs as a round of an input-required exchange.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCRequest } from 'json-rpc-2.0';
import { declaredMask } from '../../domain/client-features.js';
import type { CallSignal } from '../../domain/upstream-call.js';
import type { DeadlineWheel } from '../../lib/deadline-wheel.js';
import { traceMcpRequest, tracingOn } from '../../telemetry/tracing.js';
import { Cancellation } from '../cancellation.js';
import { LOG_LEVELS, META_LOG_LEVEL, type ClientRequests, type LogLevel } from '../client-requests.js';
import type { McpCaller, McpContext, McpView } from '../context.js';
import { INPUT_REQUIRED_METHODS, type InputExchanges, type JsonRpcAnswer } from '../input-required.js';
import {
  META_CLIENT_CAPABILITIES,
  RpcCode,
  serializeAnswer,
  serializeResponse,
  type Era,
  type RpcMessage,
  type SplicedResponse,
} from '../protocol.js';
import type { McpDispatcher } from '../rpc-server.js';
import type { Session, SessionStore } from '../sessions.js';
import { ClientCancelled, type InFlight } from './in-flight.js';
import { ResponseChannel, type AnswerChannel } from './response-channel.js';
import type { McpAccess, McpTarget } from './route.js';

/**
 * Which rules a request runs under: its era, its session (stateful) and version. `binding`: who a
 * 2026-07-28 request comes from (route scope and credential), for its input-required exchanges.
 */
export type RequestBase = { era: Era; session: Session | null; protocolVersion: string; binding?: string };

/** One request's answer; `cancelled` ones are left out of the reply. */
export type Answer = { status: number; body: string | SplicedResponse; errorCode?: number; cancelled?: boolean };

export interface DispatchDeps {
  readonly rpc: McpDispatcher;
  readonly sessions: SessionStore;
  readonly inFlight: InFlight;
  readonly clientRequests: ClientRequests;
  readonly exchanges: InputExchanges;
  /** A call still running after this long is answered as an SSE stream. */
  readonly slowMs: number;
  readonly deadlines: DeadlineWheel;
}

export class RequestDispatch {
  constructor(private readonly deps: DispatchDeps) {}

  /** Runs requests through the JSON-RPC server and writes the answer (JSON, or SSE once streaming). */
  async dispatch(
    res: ServerResponse,
    access: McpAccess,
    target: McpTarget,
    requests: RpcMessage[],
    isBatch: boolean,
    base: RequestBase,
    headers: Record<string, string>,
  ): Promise<void> {
    const view = target.view();
    const channel = new ResponseChannel(res, headers, this.deps.slowMs, this.deps.deadlines, base.session);
    const controllers: Cancellation[] = [];
    if (base.era === 'stateless') {
      // In 2026-07-28 closing the response stream cancels the request.
      res.once('close', () => {
        if (!res.writableFinished) for (const c of controllers) c.abort();
      });
    }
    const origin = tracingOn ? { req: res.req, target } : undefined;
    const all =
      requests.length === 1
        ? [await this.runOne(requests[0]!, view, target.caller, base, channel, controllers, origin)]
        : await Promise.all(requests.map((msg) => this.runOne(msg, view, target.caller, base, channel, controllers, origin)));
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

  /**
   * Runs one request and makes its answer (the HTTP+SSE transport writes it on the session's
   * stream). With tracing on, inside the request's server span (`origin`: the HTTP request and
   * target it came with, for the caller's trace context and the span's ids).
   */
  runOne(
    msg: RpcMessage,
    view: McpView,
    caller: McpCaller,
    base: RequestBase,
    channel: AnswerChannel,
    controllers: Cancellation[],
    origin?: { req: IncomingMessage; target: McpTarget },
  ): Promise<Answer> {
    if (!tracingOn) return this.serveOne(msg, view, caller, base, channel, controllers);
    return traceMcpRequest(
      {
        method: String(msg.method),
        params: msg.params as Record<string, unknown> | undefined,
        requestId: msg.id as string | number | undefined,
        sessionId: base.session?.id,
        protocolVersion: base.protocolVersion,
        endpoint: caller.endpoint,
        bundleId: caller.endpoint === 'bundle' ? origin?.target.scope : undefined,
        userId: caller.userId,
        apiKeyId: caller.apiKeyId,
        oauthClientId: caller.oauthClientId,
        headers: origin?.req.headers,
      },
      () => this.serveOne(msg, view, caller, base, channel, controllers),
    );
  }

  private async serveOne(
    msg: RpcMessage,
    view: McpView,
    caller: McpCaller,
    base: RequestBase,
    channel: AnswerChannel,
    controllers: Cancellation[],
  ): Promise<Answer> {
    const controller = new Cancellation();
    controllers.push(controller);
    const id = msg.id as string | number;
    const idKey = JSON.stringify(id);
    const calls = base.session ? this.deps.inFlight.track(base.session.id, idKey, controller) : undefined;
    const meta = (msg.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    const token = meta?.progressToken;
    const write = (m: Record<string, unknown>) => channel.notify(JSON.stringify(m));
    const statelessLevel = base.era === 'stateless' ? meta?.[META_LOG_LEVEL] : undefined;
    const downstream = this.deps.clientRequests.peer({
      era: base.era,
      session: base.session,
      capabilities: base.era === 'stateless' ? (meta?.[META_CLIENT_CAPABILITIES] as Record<string, unknown> | undefined) : undefined,
      logLevel: (LOG_LEVELS as readonly unknown[]).includes(statelessLevel) ? (statelessLevel as LogLevel) : undefined,
      owner: caller.userId ?? caller.apiKeyId ?? base.session?.credential ?? '',
      write,
    });
    const clientCapabilities =
      base.era === 'stateless'
        ? (meta?.[META_CLIENT_CAPABILITIES] as Record<string, unknown> | undefined)
        : base.session?.clientCapabilities;
    const ctx: McpContext = {
      // Tools an upstream lists only to clients with sampling, elicitation or roots are left out
      // for a caller that did not declare them (one number compared when no tool needs any).
      view: view.needs === 0 ? view : view.forClient(declaredMask(clientCapabilities)),
      caller,
      era: base.era,
      protocolVersion: base.protocolVersion,
      session: base.session,
      requestId: id,
      progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      signal: controller,
      notify: write,
      downstream,
      clientCapabilities,
      taskOwner: base.session ? `${base.session.scope}\n${base.session.credential}` : (base.binding ?? ''),
      openStream: () => channel.openStream(),
      streamIfSlow: () => channel.streamIfSlow(),
      internalError: false,
    };
    if (base.binding !== undefined && INPUT_REQUIRED_METHODS.has(msg.method as string)) {
      return this.serveExchange(msg, ctx, base.binding, controller, channel);
    }
    try {
      const response = await this.deps.rpc.receive(msg as JSONRPCRequest, ctx);
      if (msg.method === 'logging/setLevel' && base.session) void this.deps.sessions.persist(base.session);
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
      if (calls) this.deps.inFlight.forget(base.session!.id, calls, idKey, controller);
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
    const answer = await this.deps.exchanges.serve(
      {
        id: ctx.requestId,
        binding: `${binding}\n${String(msg.method)}\n${String(target)}\n${JSON.stringify(params.arguments ?? null)}`,
        caller: binding,
        owner: ctx.caller.userId ?? ctx.caller.apiKeyId ?? binding,
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
        const response = await this.deps.rpc.receive(msg as JSONRPCRequest, run);
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
}
