import type { JSONRPCErrorException } from 'json-rpc-2.0';
import { UpstreamError, type UpstreamCallOptions, type UpstreamProgress } from '../../domain/upstream-call.js';
import type { McpContext, McpMethodDeps } from '../context.js';
import { RpcCode, rpcError } from '../protocol.js';

/**
 * Runs one upstream call under the request's cancellation and the gateway's backstop timeout:
 * whatever the upstream does (hang, die, stall), the promise settles within `callTimeoutMs`.
 * The upstream call holds the request's own signal (cancellation reaches it directly) and the
 * backstop as the bound of its timeout, so it times out and is cancelled upstream in time by
 * itself; the deadline here only guarantees the answer if the upstream layer ever did not. No
 * AbortController or listener per call: on the hot path each would cost an allocation and a
 * listener registration for nothing.
 */
export function callUpstream<T>(
  ctx: McpContext,
  deps: McpMethodDeps,
  call: (options: UpstreamCallOptions) => Promise<T>,
  onProgress?: (p: UpstreamProgress) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (ctx.signal.aborted) {
      reject(new UpstreamError('cancelled', 'the caller cancelled the request'));
      return;
    }
    // One shared coarse timer for every call's backstop, a tick after the call's own bound.
    const deadline = deps.deadlines.schedule(deps.callTimeoutMs + BACKSTOP_SLACK_MS, () => {
      reject(new UpstreamError('timeout', `no answer within ${deps.callTimeoutMs} ms`));
    });
    const options: UpstreamCallOptions = { signal: ctx.signal, maxTimeoutMs: deps.callTimeoutMs };
    if (onProgress) options.onProgress = onProgress;
    if (ctx.downstream) options.downstream = ctx.downstream;
    const acting = ctx.caller.actingUserId ?? ctx.caller.userId;
    if (acting) options.actingUser = acting;
    let pending: Promise<T>;
    try {
      pending = call(options);
    } catch (err) {
      deadline.cancel();
      reject(err);
      return;
    }
    pending.then(
      (value) => {
        deadline.cancel();
        resolve(value);
      },
      (err: unknown) => {
        deadline.cancel();
        reject(err);
      },
    );
  });
}

/** How long after its bound an upstream call is given up on without the upstream layer's own answer. */
const BACKSTOP_SLACK_MS = 1000;

/** Forwards upstream progress to the caller as `notifications/progress`, only ever increasing. */
export function progressForwarder(ctx: McpContext): ((p: UpstreamProgress) => void) | undefined {
  const token = ctx.progressToken;
  if (token === undefined) return undefined;
  let last = -Infinity;
  return (p) => {
    if (typeof p?.progress !== 'number' || !(p.progress > last)) return;
    last = p.progress;
    const params: Record<string, unknown> = { progressToken: token, progress: p.progress };
    if (typeof p.total === 'number') params.total = p.total;
    if (typeof p.message === 'string') params.message = p.message;
    ctx.notify({ jsonrpc: '2.0', method: 'notifications/progress', params });
  };
}

/** The JSON-RPC error an upstream failure gives the caller (openapi.yaml, tag `mcp`). */
export function upstreamRpcError(err: UpstreamError, serverName: string): JSONRPCErrorException {
  switch (err.kind) {
    case 'timeout':
      return rpcError(RpcCode.UpstreamTimeout, `Upstream server ${serverName} did not answer in time`);
    case 'cancelled':
      return rpcError(RpcCode.RequestCancelled, 'Request cancelled');
    case 'protocol':
      return rpcError(RpcCode.UpstreamUnavailable, `Upstream server ${serverName} sent an invalid response`);
    case 'rejected':
      if (err.rpcError && Number.isInteger(err.rpcError.code))
        return rpcError(err.rpcError.code, String(err.rpcError.message), err.rpcError.data);
      return rpcError(RpcCode.UpstreamUnavailable, `Upstream server ${serverName} refused the request`);
    default:
      return rpcError(RpcCode.UpstreamUnavailable, `Upstream server ${serverName} is unavailable`);
  }
}

/** Status of a call record for an upstream failure. */
export function failureStatus(err: UpstreamError): 'timeout' | 'cancelled' | 'error' {
  return err.kind === 'timeout' ? 'timeout' : err.kind === 'cancelled' ? 'cancelled' : 'error';
}
