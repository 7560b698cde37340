import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0';
import { resultText, withResultText } from '../domain/catalog.js';
import type { McpContext, McpMethodDeps } from './context.js';
import { completionComplete } from './methods/completion.js';
import { discover, initialize, ping } from './methods/lifecycle.js';
import { loggingSetLevel } from './methods/logging.js';
import { promptsGet, promptsList } from './methods/prompts.js';
import { resourcesList, resourcesRead, resourcesSubscribe, resourceTemplatesList, resourcesUnsubscribe } from './methods/resources.js';
import { tasksCancel, tasksGet, tasksList, tasksResult, tasksUpdate } from './methods/tasks.js';
import { toolsCall, toolsList } from './methods/tools.js';
import { RawResult, RpcCode, rpcError } from './protocol.js';

type Method = (params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps) => unknown;

const METHODS: Record<string, Method> = {
  initialize,
  ping,
  'server/discover': discover,
  'tools/list': toolsList,
  'tools/call': toolsCall,
  'resources/list': resourcesList,
  'resources/templates/list': resourceTemplatesList,
  'resources/read': resourcesRead,
  'prompts/list': promptsList,
  'prompts/get': promptsGet,
  'completion/complete': completionComplete,
  'logging/setLevel': loggingSetLevel,
  'resources/subscribe': resourcesSubscribe,
  'resources/unsubscribe': resourcesUnsubscribe,
  'tasks/get': tasksGet,
  'tasks/result': tasksResult,
  'tasks/list': tasksList,
  'tasks/cancel': tasksCancel,
  'tasks/update': tasksUpdate,
};

/** Names of the methods the bundle endpoint serves. */
export const METHOD_NAMES: ReadonlySet<string> = new Set(Object.keys(METHODS));

/**
 * The JSON-RPC dispatcher of the bundle endpoint (json-rpc-2.0). Methods throw JSON-RPC errors
 * for the caller's mistakes and upstream failures; anything else is an internal error: logged,
 * answered -32603 "Internal error" (no detail), and flagged so the transport answers HTTP 500.
 * In 2026-07-28 every result carries `resultType`.
 */
export function createRpcServer(deps: McpMethodDeps): JSONRPCServer<McpContext> {
  const rpc = new JSONRPCServer<McpContext>({ errorListener: () => undefined });
  for (const [name, method] of Object.entries(METHODS)) {
    rpc.addMethod(name, async (params, ctx) => {
      try {
        const p = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
        const result = await method(p, ctx, deps);
        if (ctx.era === 'modern' && !(result instanceof RawResult) && result && typeof result === 'object' && !('resultType' in result)) {
          const complete = { ...result, resultType: 'complete' };
          // An upstream's result passed on untouched keeps its text, with the member added in front.
          const text = resultText(result);
          return text === undefined ? complete : withResultText(complete, `{"resultType":"complete",${text.slice(1)}`);
        }
        return result;
      } catch (err) {
        if (err instanceof JSONRPCErrorException) throw err;
        ctx.internalError = true;
        deps.logger.error({ err, method: name }, 'MCP request failed');
        throw rpcError(RpcCode.InternalError, 'Internal error');
      }
    });
  }
  return rpc;
}
