import { UpstreamError } from '../../domain/upstream-call.js';
import type { McpContext, McpMethodDeps } from '../context.js';
import { RpcCode, rpcError } from '../protocol.js';
import { callUpstream, upstreamRpcError } from './upstream-call.js';

/** List results carry the 2026-07-28 cache fields in that era. */
function listResult(ctx: McpContext, body: Record<string, unknown>): Record<string, unknown> {
  return ctx.era === 'stateless' ? { ...body, ...ctx.view.statelessListFields() } : body;
}

/** `resources/list`: the resources of the bundle's servers. */
export function resourcesList(_params: Record<string, unknown>, ctx: McpContext): Record<string, unknown> {
  return listResult(ctx, { resources: ctx.view.resources() });
}

/** `resources/templates/list`: the resource templates of the bundle's servers. */
export function resourceTemplatesList(_params: Record<string, unknown>, ctx: McpContext): Record<string, unknown> {
  return listResult(ctx, { resourceTemplates: ctx.view.resourceTemplates() });
}

/** `resources/read`, routed to the server that offers the URI (static or by template). */
export async function resourcesRead(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
): Promise<Record<string, unknown>> {
  const { uri } = params;
  if (typeof uri !== 'string') throw rpcError(RpcCode.InvalidParams, 'params.uri must be a string');
  const serverId = ctx.view.serverOfResource(uri);
  // 2026-07-28 reports an unknown resource as invalid params; earlier versions as -32002.
  if (!serverId) throw rpcError(ctx.era === 'stateless' ? RpcCode.InvalidParams : RpcCode.ResourceNotFound, 'Resource not found', { uri });
  ctx.streamIfSlow();
  try {
    const result = await callUpstream(ctx, deps, (options) => deps.upstreams.readResource(serverId, uri, options));
    if (!result || !Array.isArray(result.contents)) throw new UpstreamError('protocol', 'malformed resources/read result');
    return ctx.era === 'stateless' ? { ...result, ...ctx.view.statelessListFields() } : result;
  } catch (err) {
    if (err instanceof UpstreamError) throw upstreamRpcError(err, ctx.view.serverName(serverId));
    throw err;
  }
}

/** The session and server of a stateful `resources/subscribe` / `unsubscribe`; -32601 in 2026-07-28 (it has no such methods). */
function subscriptionTarget(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps) {
  if (ctx.era !== 'stateful' || !ctx.session || !deps.subscriptions.supported) throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const { uri } = params;
  if (typeof uri !== 'string') throw rpcError(RpcCode.InvalidParams, 'params.uri must be a string');
  return { session: ctx.session, uri };
}

/**
 * `resources/subscribe` (stateful sessions), relayed to the server that offers the URI; its
 * `notifications/resources/updated` then reach the session's GET stream. Unknown URI: -32002.
 */
export async function resourcesSubscribe(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
): Promise<Record<string, unknown>> {
  const { session, uri } = subscriptionTarget(params, ctx, deps);
  const serverId = ctx.view.serverOfResource(uri);
  if (!serverId) throw rpcError(RpcCode.ResourceNotFound, 'Resource not found', { uri });
  try {
    await deps.subscriptions.subscribe(session, serverId, uri);
  } catch (err) {
    if (err instanceof UpstreamError) throw upstreamRpcError(err, ctx.view.serverName(serverId));
    throw err;
  }
  return {};
}

/** `resources/unsubscribe` (stateful sessions): ends the session's subscription (a URI it never subscribed to is fine). */
export async function resourcesUnsubscribe(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
): Promise<Record<string, unknown>> {
  const { session, uri } = subscriptionTarget(params, ctx, deps);
  const serverId = session.subscriptions?.get(uri);
  try {
    await deps.subscriptions.unsubscribe(session, uri);
  } catch (err) {
    if (err instanceof UpstreamError) throw upstreamRpcError(err, ctx.view.serverName(serverId ?? ''));
    throw err;
  }
  return {};
}
