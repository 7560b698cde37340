import { UpstreamError } from '../../domain/upstream-call.js';
import type { McpContext, McpMethodDeps } from '../context.js';
import { RpcCode, rpcError } from '../protocol.js';
import { callUpstream, progressForwarder, upstreamRpcError } from './upstream-call.js';

/** `prompts/list`: the prompts of the bundle's servers. */
export function promptsList(_params: Record<string, unknown>, ctx: McpContext): Record<string, unknown> {
  const body = { prompts: ctx.view.prompts() };
  return ctx.era === 'stateless' ? { ...body, ...ctx.view.statelessListFields() } : body;
}

/** `prompts/get`, routed to the server that offers the prompt. Unknown prompt: -32602. */
export async function promptsGet(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Promise<Record<string, unknown>> {
  const { name } = params;
  const args = params.arguments ?? {};
  if (typeof name !== 'string') throw rpcError(RpcCode.InvalidParams, 'params.name must be a string');
  if (typeof args !== 'object' || args === null || Array.isArray(args) || Object.values(args).some((v) => typeof v !== 'string')) {
    throw rpcError(RpcCode.InvalidParams, 'params.arguments must map names to strings');
  }
  const serverId = ctx.view.serverOfPrompt(name);
  if (!serverId) throw rpcError(RpcCode.InvalidParams, `Unknown prompt: ${name}`);
  ctx.streamIfSlow();
  try {
    const result = await callUpstream(
      ctx,
      deps,
      (options) => deps.upstreams.getPrompt(serverId, name, args as Record<string, string>, options),
      progressForwarder(ctx),
    );
    if (!result || !Array.isArray(result.messages)) throw new UpstreamError('protocol', 'malformed prompts/get result');
    return result;
  } catch (err) {
    if (err instanceof UpstreamError) throw upstreamRpcError(err, ctx.view.serverName(serverId));
    throw err;
  }
}
