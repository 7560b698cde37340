import { expect } from 'chai';
import { JSONRPCErrorException, JSONRPCServer, type JSONRPCRequest } from 'json-rpc-2.0';
import type { McpContext, McpMethodDeps } from '../../../src/mcp/context.js';
import { RawResult, type Era } from '../../../src/mcp/protocol.js';
import { McpDispatcher } from '../../../src/mcp/rpc-server.js';

const errors: unknown[] = [];
const deps = { logger: { error: (o: unknown) => errors.push(o) } } as unknown as McpMethodDeps;

/** A context whose view lists no tools, or fails as a bug would (`broken`). */
function context(era: Era, broken = false): McpContext {
  const byName = broken
    ? {
        get: () => {
          throw new TypeError('a bug');
        },
      }
    : new Map();
  return {
    era,
    view: { toolsListPage: () => new RawResult('{"tools":[]}'), byName, unavailable: new Map(), builtins: undefined },
    internalError: false,
  } as unknown as McpContext;
}

const EMPTY_PAGE = new RawResult('{"tools":[]}');

/** Each request with the answer json-rpc-2.0's generic path gives it, the same in both eras. */
const CASES: [JSONRPCRequest, Record<string, unknown>][] = [
  [
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 1, result: EMPTY_PAGE },
  ],
  [
    { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { cursor: 'x' } },
    { jsonrpc: '2.0', id: 'a', result: EMPTY_PAGE },
  ],
  [
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'missing', arguments: {} } },
    { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Unknown tool: missing' } },
  ],
  [
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 7 } },
    { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'params.name must be a string' } },
  ],
  [
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x', arguments: [] } },
    { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'params.arguments must be an object' } },
  ],
  [
    { jsonrpc: '2.0', id: 5, method: 'tools/call' },
    { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'params.name must be a string' } },
  ],
];

/**
 * A json-rpc-2.0 server whose `tools/list` and `tools/call` give the hot path's results and throw
 * its errors: what json-rpc-2.0 makes of them is the answer the hot path must give itself.
 */
function genericAround(hot: McpDispatcher): JSONRPCServer<McpContext> {
  const server = new JSONRPCServer<McpContext>({ errorListener: () => undefined });
  for (const method of ['tools/list', 'tools/call']) {
    server.addMethod(method, async (params, ctx) => {
      const response = await hot.receive({ jsonrpc: '2.0', id: 0, method, params }, ctx);
      if (response?.error) throw new JSONRPCErrorException(response.error.message, response.error.code, response.error.data);
      return response?.result;
    });
  }
  return server;
}

describe('McpDispatcher (tool calls and listings answered without json-rpc-2.0’s generic path)', () => {
  it('answers tools/call and tools/list exactly as json-rpc-2.0 does, results and errors alike', async () => {
    const hot = new McpDispatcher(deps);
    const generic = genericAround(hot);
    for (const era of ['stateful', 'stateless'] as const) {
      for (const [request, expected] of CASES) {
        const a = await hot.receive(request, context(era));
        expect(a, `${era} ${JSON.stringify(request)}`).to.deep.equal(expected);
        expect(a, `${era} ${JSON.stringify(request)} (json-rpc-2.0)`).to.deep.equal(await generic.receive(request, context(era)));
      }
    }
    expect((await hot.receive(CASES[0]![0], context('stateful')))?.result).to.be.instanceOf(RawResult);
  });

  it('answers an unexpected failure -32603 "Internal error", flagged for HTTP 500 and logged, on both paths', async () => {
    const dispatcher = new McpDispatcher(deps);
    // tools/call is a hot method; prompts/list goes through json-rpc-2.0 (the broken view has no prompts).
    for (const [method, params] of [
      ['tools/call', { name: 'x' }],
      ['prompts/list', {}],
    ] as const) {
      errors.length = 0;
      const ctx = context('stateful', true);
      const response = await dispatcher.receive({ jsonrpc: '2.0', id: 9, method, params }, ctx);
      expect(response, method).to.deep.equal({ jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'Internal error' } });
      expect(ctx.internalError, method).to.equal(true);
      expect(errors, method).to.have.length(1);
    }
  });

  it('leaves every other method to json-rpc-2.0 (an unknown one: -32601)', async () => {
    const response = await new McpDispatcher(deps).receive({ jsonrpc: '2.0', id: 1, method: 'nope/nothing' }, context('stateful'));
    expect(response?.error?.code).to.equal(-32601);
  });
});
