import {
  createJSONRPCErrorResponse,
  createJSONRPCSuccessResponse,
  JSONRPCErrorException,
  JSONRPCServer,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from 'json-rpc-2.0';
import { resultText, withResultText } from '../domain/result-text.js';
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

/** A method as the dispatcher runs it: errors are JSON-RPC errors (see `wrap`). */
type Wrapped = (params: unknown, ctx: McpContext) => Promise<unknown>;

/**
 * Methods answered without json-rpc-2.0's generic path: the tool calls and listings every agent
 * makes, where its request check (already made by the endpoint), middleware chain and
 * generator-based async layers would cost several promises and microtask turns per call. Answered
 * the same way, to the byte (test/unit/mcp/dispatcher.test.ts holds the two side by side).
 */
const HOT_METHODS: readonly string[] = ['tools/call', 'tools/list'];

/**
 * One method with the endpoint's error rules: methods throw JSON-RPC errors for the caller's
 * mistakes and upstream failures; anything else is an internal error: logged, answered -32603
 * "Internal error" (no detail), and flagged so the transport answers HTTP 500. In 2026-07-28
 * every result carries `resultType`.
 */
function wrap(name: string, method: Method, deps: McpMethodDeps): Wrapped {
  return async (params, ctx) => {
    try {
      const p = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
      const result = await method(p, ctx, deps);
      if (ctx.era === 'stateless' && !(result instanceof RawResult) && result && typeof result === 'object' && !('resultType' in result)) {
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
  };
}

/**
 * The JSON-RPC dispatcher of the bundle and gateway endpoints: json-rpc-2.0's server for every
 * method, but for the hot ones, which it answers itself with the same responses.
 */
export class McpDispatcher {
  private readonly server = new JSONRPCServer<McpContext>({ errorListener: () => undefined });
  private readonly hot = new Map<string, Wrapped>();

  constructor(deps: McpMethodDeps) {
    for (const [name, method] of Object.entries(METHODS)) {
      const wrapped = wrap(name, method, deps);
      if (HOT_METHODS.includes(name)) this.hot.set(name, wrapped);
      else this.server.addMethod(name, wrapped);
    }
  }

  /** The response to one request (never null: the endpoint passes requests only, not notifications). */
  receive(request: JSONRPCRequest, ctx: McpContext): PromiseLike<JSONRPCResponse | null> {
    const hot = this.hot.get(request.method);
    return hot ? answer(hot, request, ctx) : this.server.receive(request, ctx);
  }
}

/** A hot method's response, as json-rpc-2.0 would have made it. */
async function answer(method: Wrapped, request: JSONRPCRequest, ctx: McpContext): Promise<JSONRPCResponse> {
  const id = request.id ?? null;
  try {
    return createJSONRPCSuccessResponse(id, await method(request.params, ctx));
  } catch (err) {
    // `wrap` turns every other failure into one of these.
    if (!(err instanceof JSONRPCErrorException)) throw err;
    return createJSONRPCErrorResponse(id, err.code, err.message, err.data);
  }
}
