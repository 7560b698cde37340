import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { decodeParamHeader, paramHeaderMismatch } from '../../../../src/mcp/transport/stateless-headers.js';

const schema = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' }, q: { type: 'string' } },
};
const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('Mcp-Param headers (SEP-2243)', () => {
  it('decodes =?base64?…?= values strictly and takes anything else literally', () => {
    expect(decodeParamHeader(`=?base64?${Buffer.from('Grüße').toString('base64')}?=`)).to.equal('Grüße');
    expect(decodeParamHeader('=?base64?SGVsbG8?=')).to.equal(undefined); // padding missing
    expect(decodeParamHeader('=?base64?SGVs!!!bG8=?=')).to.equal(undefined); // not the alphabet
    expect(decodeParamHeader('SGVsbG8=')).to.equal('SGVsbG8=');
    expect(decodeParamHeader('=?base64?SGVsbG8=')).to.equal('=?base64?SGVsbG8=');
  });

  it('accepts headers that mirror the arguments, numbers as JSON', () => {
    expect(
      paramHeaderMismatch(req({ 'mcp-param-region': 'eu-west', 'mcp-param-n': '3' }), schema, { region: 'eu-west', n: 3, q: 'x' }),
    ).to.equal(undefined);
    expect(paramHeaderMismatch(req({ 'mcp-param-region': '=?base64?ZXUtd2VzdA==?=' }), schema, { region: 'eu-west' })).to.equal(undefined);
    expect(paramHeaderMismatch(req({}), schema, { q: 'only an unmirrored argument' })).to.equal(undefined);
    expect(paramHeaderMismatch(req({}), { type: 'object' }, { region: 'x' })).to.equal(undefined);
  });

  it('refuses a missing, extra, different or badly encoded header', () => {
    expect(paramHeaderMismatch(req({}), schema, { region: 'eu-west' })).to.match(/Mcp-Param-Region is required/);
    expect(paramHeaderMismatch(req({ 'mcp-param-region': 'eu-west' }), schema, {})).to.match(/is set but arguments.region is not/);
    expect(paramHeaderMismatch(req({ 'mcp-param-region': 'us-east' }), schema, { region: 'eu-west' })).to.match(
      /must equal arguments.region/,
    );
    expect(paramHeaderMismatch(req({ 'mcp-param-region': '=?base64?ZXUtd2VzdA?=' }), schema, { region: 'eu-west' })).to.match(
      /not valid Base64/,
    );
  });
});
