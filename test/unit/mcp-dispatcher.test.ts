import { expect } from 'chai';
import type { JSONRPCRequest } from 'json-rpc-2.0';
import type { McpContext, McpMethodDeps } from '../../src/mcp/context.js';
import { RawResult } from '../../src/mcp/protocol.js';
import { McpDispatcher } from '../../src/mcp/rpc-server.js';

const errors: unknown[] = [];
const deps = { logger: { error: (o: unknown) => errors.push(o) } } as unknown as McpMethodDeps;

/** A context whose view lists no tools, or fails as a bug would (`broken`). */
function context(era: 'legacy' | 'modern', broken = false): McpContext {
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

const requests: JSONRPCRequest[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { cursor: 'x' } },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'missing', arguments: {} } },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 7 } },
  { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x', arguments: [] } },
  { jsonrpc: '2.0', id: 5, method: 'tools/call' },
];

describe('McpDispatcher (hot methods without json-rpc-2.0’s generic path, which costs every call)', () => {
  it('answers tools/call and tools/list exactly as json-rpc-2.0 does, results and errors alike', async () => {
    const hot = new McpDispatcher(deps);
    const generic = new McpDispatcher(deps, { hot: false });
    for (const era of ['legacy', 'modern'] as const) {
      for (const request of requests) {
        const a = await hot.receive(request, context(era));
        const b = await generic.receive(request, context(era));
        expect(a, `${era} ${JSON.stringify(request)}`).to.deep.equal(b);
      }
    }
    expect((await hot.receive(requests[2]!, context('legacy')))?.error).to.deep.equal({ code: -32602, message: 'Unknown tool: missing' });
    expect((await hot.receive(requests[0]!, context('legacy')))?.result).to.be.instanceOf(RawResult);
  });

  it('answers an unexpected failure -32603 "Internal error", flagged for HTTP 500 and logged, on both paths', async () => {
    for (const dispatcher of [new McpDispatcher(deps), new McpDispatcher(deps, { hot: false })]) {
      errors.length = 0;
      const ctx = context('legacy', true);
      const response = await dispatcher.receive({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'x' } }, ctx);
      expect(response).to.deep.equal({ jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'Internal error' } });
      expect(ctx.internalError).to.equal(true);
      expect(errors).to.have.length(1);
    }
  });

  it('leaves every other method to json-rpc-2.0 (an unknown one: -32601)', async () => {
    const response = await new McpDispatcher(deps).receive({ jsonrpc: '2.0', id: 1, method: 'nope/nothing' }, context('legacy'));
    expect(response?.error?.code).to.equal(-32601);
  });
});
