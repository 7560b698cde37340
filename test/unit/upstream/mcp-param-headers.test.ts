import { expect } from 'chai';
import { paramHeadersOf, paramHeaderValues } from '../../../src/upstream/mcp-param-headers.js';

const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('x-mcp-header annotations (SEP-2243)', () => {
  describe('paramHeadersOf', () => {
    it('lists the annotated string, integer and boolean properties', () => {
      expect(
        paramHeadersOf(
          schema({
            region: { type: 'string', 'x-mcp-header': 'Region' },
            n: { type: 'integer', 'x-mcp-header': 'N' },
            on: { type: 'boolean', 'x-mcp-header': 'On' },
            plain: { type: 'string' },
          }),
        ),
      ).to.deep.equal([
        ['region', 'Region'],
        ['n', 'N'],
        ['on', 'On'],
      ]);
      expect(paramHeadersOf(schema({}))).to.deep.equal([]);
      expect(paramHeadersOf(undefined)).to.deep.equal([]);
    });

    const invalid: Record<string, Record<string, unknown>> = {
      'an empty name': { v: { type: 'string', 'x-mcp-header': '' } },
      'a name with a space': { v: { type: 'string', 'x-mcp-header': 'My Region' } },
      'a name with a colon': { v: { type: 'string', 'x-mcp-header': 'Region:Primary' } },
      'a non-ASCII name': { v: { type: 'string', 'x-mcp-header': 'Région' } },
      'a name with a control character': { v: { type: 'string', 'x-mcp-header': 'Region\t1' } },
      'a number property': { v: { type: 'number', 'x-mcp-header': 'Score' } },
      'an object property': { v: { type: 'object', 'x-mcp-header': 'Data' } },
      'an array property': { v: { type: 'array', 'x-mcp-header': 'Items' } },
      'a null property': { v: { type: 'null', 'x-mcp-header': 'Nil' } },
      'a name used twice': { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } },
      'a name used twice in another case': {
        a: { type: 'string', 'x-mcp-header': 'MyField' },
        b: { type: 'string', 'x-mcp-header': 'myfield' },
      },
    };
    for (const [what, properties] of Object.entries(invalid))
      it(`refuses the tool for ${what}`, () => expect(paramHeadersOf(schema(properties))).to.equal(undefined));
  });

  describe('paramHeaderValues', () => {
    const headers = paramHeadersOf(
      schema({
        s: { type: 'string', 'x-mcp-header': 'S' },
        i: { type: 'integer', 'x-mcp-header': 'I' },
        b: { type: 'boolean', 'x-mcp-header': 'B' },
      }),
    )!;
    it('writes plain ASCII strings, numbers and booleans as they are', () => {
      expect(paramHeaderValues(headers, { s: 'us west 1', i: 42, b: false })).to.deep.equal({
        'mcp-param-s': 'us west 1',
        'mcp-param-i': '42',
        'mcp-param-b': 'false',
      });
      expect(paramHeaderValues(headers, { s: '' })).to.deep.equal({ 'mcp-param-s': '' });
    });
    it('Base64-encodes strings with non-ASCII, control characters or outer whitespace', () => {
      for (const value of ['Hello, 世界', ' padded', 'padded ', 'line1\nline2', '\tindented'])
        expect(paramHeaderValues(headers, { s: value })['mcp-param-s']).to.equal(`=?base64?${Buffer.from(value).toString('base64')}?=`);
    });
    it('omits null and absent arguments', () => {
      expect(paramHeaderValues(headers, { s: null })).to.deep.equal({});
      expect(paramHeaderValues(headers, {})).to.deep.equal({});
    });
  });
});
