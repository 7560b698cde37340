import { expect } from 'chai';
import type { ErrorObject } from 'ajv';
import { nulCharacterIssues, toValidationIssues } from '../../../src/http/validation-errors.js';

const err = (e: Partial<ErrorObject>): ErrorObject =>
  ({ keyword: 'type', instancePath: '', schemaPath: '#', params: {}, ...e }) as ErrorObject;

describe('toValidationIssues', () => {
  it('maps query limits to loc, Pydantic-style type, message, input and ctx', () => {
    const [issue] = toValidationIssues(
      [err({ keyword: 'maximum', instancePath: '/query/page_size', params: { limit: 100, comparison: '<=' } })],
      {
        query: { page_size: 101 },
      },
    );
    expect(issue).to.deep.equal({
      loc: ['query', 'page_size'],
      msg: 'Input should be less than or equal to 100',
      type: 'less_than_equal',
      input: 101,
      ctx: { le: 100 },
    });
  });

  it('reports a missing body field under body with the parent as input', () => {
    const [issue] = toValidationIssues([err({ keyword: 'required', instancePath: '/requestBody', params: { missingProperty: 'name' } })], {
      requestBody: { description: 'x' },
    });
    expect(issue?.loc).to.deep.equal(['body', 'name']);
    expect(issue?.type).to.equal('missing');
    expect(issue?.input).to.deep.equal({ description: 'x' });
  });

  it('reports a missing body on body itself, echoing no part of the request as its input', () => {
    const parameters = {
      path: {},
      query: {},
      header: { authorization: 'Bearer tg_usr_live_x', 'x-probe': 'header-value' },
      cookie: { access_token: 'session', theme: 'dark' },
    };
    const [issue] = toValidationIssues(
      [err({ keyword: 'required', instancePath: '', params: { missingProperty: 'requestBody' } })],
      parameters,
    );
    expect(issue?.loc).to.deep.equal(['body']);
    expect(issue?.input).to.equal(null);
    expect(JSON.stringify(issue)).to.not.match(/header-value|dark|session|authorization|cookie/);
  });

  it('echoes no parameter section for a missing parameter', () => {
    const [issue] = toValidationIssues([err({ keyword: 'required', instancePath: '/header', params: { missingProperty: 'x-needed' } })], {
      header: { 'x-probe': 'header-value', cookie: 'theme=dark' },
    });
    expect(issue).to.deep.include({ loc: ['header', 'x-needed'], type: 'missing', input: null });
  });

  it('maps path uuid format errors and array indexes', () => {
    const issues = toValidationIssues(
      [
        err({ keyword: 'format', instancePath: '/path/bundle_id', params: { format: 'uuid' } }),
        err({ keyword: 'type', instancePath: '/requestBody/tool_orders/0/1', params: { type: 'integer' } }),
      ],
      { path: { bundle_id: 'abc' }, requestBody: { tool_orders: [['x', 'y']] } },
    );
    expect(issues[0]).to.include({ type: 'uuid_parsing', input: 'abc' });
    expect(issues[0]?.loc).to.deep.equal(['path', 'bundle_id']);
    expect(issues[1]?.loc).to.deep.equal(['body', 'tool_orders', 0, 1]);
    expect(issues[1]?.type).to.equal('int_type');
  });

  it('never echoes secret values', () => {
    const secret = 'super-secret-client-secret-value';
    const issues = toValidationIssues(
      [
        err({ keyword: 'maxLength', instancePath: '/requestBody/client_secret', params: { limit: 10 } }),
        err({ keyword: 'required', instancePath: '/requestBody', params: { missingProperty: 'client_id' } }),
      ],
      { requestBody: { client_secret: secret } },
    );
    expect(JSON.stringify(issues)).not.to.include(secret);
  });

  it('cuts huge inputs instead of echoing them whole', () => {
    const big = 'x'.repeat(100_000);
    const [issue] = toValidationIssues([err({ keyword: 'maxLength', instancePath: '/query/search', params: { limit: 255 } })], {
      query: { search: big },
    });
    expect(String(issue?.input).length).to.be.lessThan(1100);
  });
});

describe('nulCharacterIssues', () => {
  const NUL = '\u0000';

  it('finds nothing in clean input', () => {
    expect(nulCharacterIssues({ path: { id: 'a' }, query: { q: 'b' }, body: { a: [1, 'x', { b: null }] } })).to.deep.equal([]);
  });

  it('locates a NUL in parameters, body strings, array items, nested values and keys', () => {
    const issues = nulCharacterIssues({
      path: { provider_type: `g${NUL}h` },
      query: { search: `a${NUL}` },
      body: { name: 'ok', args: ['x', `y${NUL}`], env: { [`K${NUL}`]: 'v', PATH: `/bin${NUL}` }, config: { a: { b: [{ c: NUL }] } } },
    });
    expect(issues.map((i) => i.loc)).to.deep.equal([
      ['body', 'args', 1],
      ['body', 'env', `K${NUL}`],
      ['body', 'env', 'PATH'],
      ['body', 'config', 'a', 'b', 0, 'c'],
      ['query', 'search'],
      ['path', 'provider_type'],
    ]);
    expect(issues[0]).to.deep.equal({
      loc: ['body', 'args', 1],
      msg: 'Input should not contain the NUL character (U+0000)',
      type: 'string_nul_character',
      input: `y${NUL}`,
      ctx: { character: 'U+0000' },
    });
    expect(issues[1]?.msg).to.match(/Field names/);
  });

  it('redacts secret fields and cuts the number of issues', () => {
    const [secret] = nulCharacterIssues({ body: { client_secret: `s3cr3t${NUL}` } });
    expect(secret?.input).to.equal('[redacted]');
    const many = nulCharacterIssues({ body: Array.from({ length: 500 }, () => NUL) });
    expect(many).to.have.length(20);
  });

  it('skips walking a body whose JSON text has no \\u0000 escape, and walks 100000 levels without recursion', () => {
    expect(nulCharacterIssues({ body: { a: NUL } }, '{"a":"x"}')).to.deep.equal([]);
    let deep: unknown = NUL;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const [issue] = nulCharacterIssues({ body: deep }, '"\\u0000"');
    expect(issue?.loc).to.have.length(100_001);
  });
});
