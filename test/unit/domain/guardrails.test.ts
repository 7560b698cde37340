import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { effectiveRedaction, interceptorSignature, parseInterceptorDecision } from '../../../src/domain/guardrails.js';

describe('guardrails (settings, signatures, interceptor answers)', () => {
  it("resolves a bundle's redaction: its own setting where it has one, else the installation's", () => {
    const global = { redact_secrets: true, redact_pii: false };
    expect(effectiveRedaction(global, undefined)).to.equal(global);
    expect(effectiveRedaction(global, { redact_secrets: null, redact_pii: true })).to.deep.equal({
      redact_secrets: true,
      redact_pii: true,
    });
    expect(effectiveRedaction(global, { redact_secrets: false, redact_pii: null })).to.deep.equal({
      redact_secrets: false,
      redact_pii: false,
    });
  });

  it('signs "<timestamp>.<body>" with HMAC-SHA256 of the secret', () => {
    const expected = createHmac('sha256', 's3cret').update('1700000000.{"a":1}').digest('hex');
    expect(interceptorSignature('s3cret', '1700000000', '{"a":1}')).to.equal(`sha256=${expected}`);
    expect(interceptorSignature('other', '1700000000', '{"a":1}')).to.not.equal(`sha256=${expected}`);
  });

  it('accepts the three decisions in the shape of their phase', () => {
    expect(parseInterceptorDecision({ action: 'allow', extra: 1 }, 'before')).to.deep.equal({ action: 'allow' });
    expect(parseInterceptorDecision({ action: 'reject' }, 'after')).to.deep.equal({ action: 'reject', message: null });
    expect(parseInterceptorDecision({ action: 'reject', message: 'x'.repeat(5000) }, 'before')).to.deep.equal({
      action: 'reject',
      message: 'x'.repeat(1000),
    });
    expect(parseInterceptorDecision({ action: 'rewrite', arguments: { a: 1 } }, 'before')).to.deep.equal({
      action: 'rewrite',
      arguments: { a: 1 },
    });
    const result = { content: [{ type: 'text', text: 'ok' }], isError: false };
    expect(parseInterceptorDecision({ action: 'rewrite', result }, 'after')).to.deep.equal({ action: 'rewrite', result });
  });

  it('names the problem of an answer that is not a decision', () => {
    const problems = [
      [null, 'before'],
      [[], 'before'],
      [{ action: 'maybe' }, 'before'],
      [{ action: 'reject', message: 42 }, 'before'],
      [{ action: 'rewrite' }, 'before'],
      [{ action: 'rewrite', arguments: [1] }, 'before'],
      [{ action: 'rewrite', arguments: { a: 1 } }, 'after'],
      [{ action: 'rewrite', result: { content: 'text' } }, 'after'],
      [{ action: 'rewrite', result: { content: [], isError: 'yes' } }, 'after'],
    ] as const;
    for (const [body, phase] of problems) expect(parseInterceptorDecision(body, phase), JSON.stringify(body)).to.have.property('problem');
  });
});
