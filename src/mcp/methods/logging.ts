import { LOG_LEVELS, type LogLevel } from '../client-requests.js';
import type { McpContext } from '../context.js';
import { RpcCode, rpcError } from '../protocol.js';

/**
 * `logging/setLevel` (stateful sessions): the least severe level of the upstream log messages relayed to the
 * session's calls from now on. Kept per session rather than sent upstream: an upstream connection
 * is shared by every caller, each with its own level. 2026-07-28 sets the level per request
 * (`_meta`), so the method does not exist there.
 */
export function loggingSetLevel(params: Record<string, unknown>, ctx: McpContext): Record<string, unknown> {
  if (ctx.era !== 'stateful' || !ctx.session) throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const { level } = params;
  if (!(LOG_LEVELS as readonly unknown[]).includes(level))
    throw rpcError(RpcCode.InvalidParams, `params.level must be one of ${LOG_LEVELS.join(', ')}`);
  ctx.session.logLevel = level as LogLevel;
  return {};
}
