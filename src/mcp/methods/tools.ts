import { ConcealedArgumentError, upstreamArguments } from '../../services/bundles-tools.js';
import { UpstreamError, type ToolCallResult } from '../../services/catalog-types.js';
import type { CallStatus } from '../../stores/call-records-store.js';
import type { McpContext, McpMethodDeps } from '../context.js';
import type { RawResult } from '../protocol.js';
import { RpcCode, rpcError } from '../protocol.js';
import { callUpstream, failureStatus, progressForwarder, upstreamRpcError } from './upstream-call.js';

/** `tools/list`: the bundle's offered tools, pre-serialised page by page. */
export function toolsList(params: Record<string, unknown>, ctx: McpContext): RawResult {
  return ctx.view.toolsListPage(params.cursor, ctx.era);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A well-formed CallToolResult: content blocks that are objects, optional structured content. */
function isCallToolResult(r: unknown): r is ToolCallResult {
  return (
    isPlainObject(r) &&
    Array.isArray(r.content) &&
    r.content.every(isPlainObject) &&
    (r.structuredContent === undefined || isPlainObject(r.structuredContent)) &&
    (r.isError === undefined || typeof r.isError === 'boolean')
  );
}

/**
 * `tools/call`: the name the caller knows is mapped to the upstream tool, the arguments get the
 * bundle's defaults and pinned values, and the call runs under cancellation and the backstop
 * timeout. Every call is recorded (off the path). Unknown tool: -32602; a pinned or hidden
 * argument from the caller: an `isError` result, the upstream is not called.
 */
export async function toolsCall(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Promise<ToolCallResult> {
  const { name } = params;
  const args = params.arguments ?? {};
  if (typeof name !== 'string') throw rpcError(RpcCode.InvalidParams, 'params.name must be a string');
  if (!isPlainObject(args)) throw rpcError(RpcCode.InvalidParams, 'params.arguments must be an object');
  const tool = ctx.view.byName.get(name);
  if (!tool) throw rpcError(RpcCode.InvalidParams, `Unknown tool: ${name}`);

  const started = performance.now();
  const record = (status: CallStatus, error: string | null) =>
    deps.recorder.record({
      occurred_at: new Date(),
      endpoint: 'bundle',
      bundle_id: ctx.view.bundle.id,
      server_id: tool.serverId,
      server_name: ctx.view.serverName(tool.serverId),
      tool_id: tool.toolId,
      tool_name: tool.upstreamName,
      user_id: null,
      api_key_id: null,
      status,
      latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
      error,
    });

  let upstreamArgs: Record<string, unknown>;
  try {
    upstreamArgs = upstreamArguments(tool.override, args);
  } catch (err) {
    if (!(err instanceof ConcealedArgumentError)) throw err;
    record('tool_error', err.message);
    return { content: [{ type: 'text', text: err.message }], isError: true };
  }

  if (ctx.progressToken !== undefined) ctx.openStream();
  else ctx.streamIfSlow();
  try {
    const result = await callUpstream(
      ctx,
      deps,
      (options) => deps.upstreams.callTool(tool.serverId, tool.upstreamName, upstreamArgs, options),
      progressForwarder(ctx),
    );
    if (!isCallToolResult(result)) throw new UpstreamError('protocol', 'malformed tools/call result');
    record(result.isError ? 'tool_error' : 'ok', result.isError ? 'the tool reported an error' : null);
    return result;
  } catch (err) {
    if (!(err instanceof UpstreamError)) {
      record('error', 'internal error');
      throw err;
    }
    const rpc = upstreamRpcError(err, ctx.view.serverName(tool.serverId));
    record(failureStatus(err), rpc.message);
    throw rpc;
  }
}
