import { UpstreamError, type CompletionRef } from '../../domain/upstream-call.js';
import type { McpContext, McpMethodDeps } from '../context.js';
import { RpcCode, rpcError } from '../protocol.js';
import { callUpstream, upstreamRpcError } from './upstream-call.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `completion/complete`, forwarded to the server that offers the prompt (`ref/prompt`) or the
 * resource template (`ref/resource`). Prompts and resources keep their upstream names in a
 * bundle, so the reference goes upstream as the caller wrote it. Unknown prompt or template: -32602.
 */
export async function completionComplete(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
): Promise<Record<string, unknown>> {
  const { ref, argument, context } = params;
  if (!isObject(ref)) throw rpcError(RpcCode.InvalidParams, 'params.ref must be an object');
  if (!isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string')
    throw rpcError(RpcCode.InvalidParams, 'params.argument must have a string name and value');
  if (context !== undefined && !isObject(context)) throw rpcError(RpcCode.InvalidParams, 'params.context must be an object');
  let upstreamRef: CompletionRef;
  let serverId: string | undefined;
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    upstreamRef = { type: 'ref/prompt', name: ref.name };
    serverId = ctx.view.serverOfPrompt(ref.name);
    if (!serverId) throw rpcError(RpcCode.InvalidParams, `Unknown prompt: ${ref.name}`);
  } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
    upstreamRef = { type: 'ref/resource', uri: ref.uri };
    serverId = ctx.view.serverOfResource(ref.uri);
    if (!serverId) throw rpcError(RpcCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
  } else {
    throw rpcError(RpcCode.InvalidParams, 'params.ref must be a ref/prompt with a name or a ref/resource with a uri');
  }
  const complete = deps.upstreams.complete?.bind(deps.upstreams);
  if (!complete) throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const id = serverId;
  try {
    const result = await callUpstream(ctx, deps, (options) =>
      complete(
        id,
        { ref: upstreamRef, argument: { name: argument.name as string, value: argument.value as string }, ...(context ? { context } : {}) },
        options,
      ),
    );
    if (!isObject(result) || !isObject(result.completion) || !Array.isArray(result.completion.values))
      throw new UpstreamError('protocol', 'malformed completion/complete result');
    return result;
  } catch (err) {
    if (err instanceof UpstreamError) throw upstreamRpcError(err, ctx.view.serverName(id));
    throw err;
  }
}
