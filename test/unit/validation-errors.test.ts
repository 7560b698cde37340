import { expect } from 'chai';
import type { ErrorObject } from 'ajv';
import { toValidationIssues } from '../../src/http/validation-errors.js';

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

  it('reports a missing body on body itself', () => {
    const [issue] = toValidationIssues([err({ keyword: 'required', instancePath: '', params: { missingProperty: 'requestBody' } })], {});
    expect(issue?.loc).to.deep.equal(['body']);
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
