import { expect } from 'chai';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '../../../src/domain/result-text.js';
import { InvalidAnswerError } from '../../../src/upstream/upstream-errors.js';
import { callResult } from '../../../src/upstream/upstream-pool.js';

const reply = (text: string) => ({ message: JSON.parse(text) as Record<string, unknown>, text });

describe('callResult (the answer to a direct tools/call)', () => {
  it('keeps the text of an unchanged result, as the upstream wrote it', () => {
    const result = callResult(reply('{"id":"tg.1","result":{ "content" : [{"type":"text","text":"x"}], "n":1.50 },"jsonrpc":"2.0"}'));
    expect(result).to.deep.equal({ content: [{ type: 'text', text: 'x' }], n: 1.5 });
    expect(resultText(result)).to.equal('{ "content" : [{"type":"text","text":"x"}], "n":1.50 }');
    // The text never travels with a copy: a changed result is serialised anew.
    expect(resultText({ ...result })).to.equal(undefined);
  });

  it('reads a result without content as one with none (a new object, no text), and keeps no text from a transport without it', () => {
    const empty = callResult(reply('{"jsonrpc":"2.0","id":"tg.1","result":{"isError":false}}'));
    expect(empty).to.deep.equal({ isError: false, content: [] });
    expect(resultText(empty)).to.equal(undefined);
    expect(resultText(callResult({ message: { result: { content: [] } }, text: undefined }))).to.equal(undefined);
  });

  it('raises the McpError the SDK would for an error answer', () => {
    const err = (() => {
      try {
        callResult(reply('{"jsonrpc":"2.0","id":"tg.1","error":{"code":-32602,"message":"Unknown tool: x","data":{"a":1}}}'));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).to.be.instanceOf(McpError);
    expect((err as McpError).code).to.equal(-32602);
    expect((err as McpError).message).to.equal('MCP error -32602: Unknown tool: x');
    expect((err as McpError).data).to.deep.equal({ a: 1 });
  });

  it('refuses what is not a CallToolResult', () => {
    for (const bad of [
      '{"result":[]}',
      '{"result":{"content":{}}}',
      '{"result":{"content":[{"text":"no type"}]}}',
      '{"result":{"content":[],"structuredContent":[1]}}',
      '{"result":{"content":[],"isError":"yes"}}',
      '{"result":null}',
    ])
      expect(() => callResult(reply(bad)), bad).to.throw(InvalidAnswerError);
  });
});
