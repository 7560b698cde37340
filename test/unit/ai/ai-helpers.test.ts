import { expect } from 'chai';
import { scrubVendorMessage } from '../../../src/ai/ai-errors.js';
import { effectiveEndpoint, endpointIdentity, supportsType } from '../../../src/ai/provider-endpoints.js';
import { readJsonAnswer, validatorFor } from '../../../src/ai/structured-output.js';

describe('AI adapter helpers', () => {
  describe('scrubVendorMessage', () => {
    const key = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234';
    it('removes the key, fragments of it and key-shaped tokens', () => {
      const out = scrubVendorMessage(
        `Incorrect API key provided: ${key}. Prefix ${key.slice(0, 12)} and "${key.slice(10, 24)}" sk-other-123456789`,
        [key],
      );
      expect(out).to.not.include(key);
      expect(out).to.not.include(key.slice(0, 12));
      expect(out).to.not.include(key.slice(10, 24));
      expect(out).to.not.include('sk-other-123456789');
      expect(out).to.include('Incorrect API key provided');
    });
    it('drops control characters and cuts long messages', () => {
      const out = scrubVendorMessage(`a\nb\u0000c${'x '.repeat(400)}`, [null], 50);
      expect(out).to.have.length(50);
      expect(out.startsWith('a b c')).to.equal(true);
      expect(out.endsWith('…')).to.equal(true);
    });
  });

  describe('endpoints', () => {
    it('falls back to each provider default, none for openai_compatible', () => {
      expect(effectiveEndpoint('openai', null)).to.equal('https://api.openai.com/v1');
      expect(effectiveEndpoint('ollama', undefined)).to.equal('http://127.0.0.1:11434/v1');
      expect(effectiveEndpoint('vllm', '')).to.equal('http://127.0.0.1:8000/v1');
      expect(effectiveEndpoint('lmstudio', null)).to.equal('http://127.0.0.1:1234/v1');
      expect(effectiveEndpoint('anthropic', null)).to.equal('https://api.anthropic.com');
      expect(effectiveEndpoint('openai_compatible', null)).to.equal(null);
    });
    it('strips trailing slashes, and /v1 for Anthropic (its SDK adds it)', () => {
      expect(effectiveEndpoint('openai', 'https://example.com/v1/')).to.equal('https://example.com/v1');
      expect(effectiveEndpoint('anthropic', 'https://proxy.example.com/v1/')).to.equal('https://proxy.example.com');
    });
    it('gives equal identities to equivalent endpoints', () => {
      expect(endpointIdentity('openai', null)).to.equal(endpointIdentity('openai', 'https://API.OpenAI.com/v1/'));
      expect(endpointIdentity('openai', 'https://x.example/v1')).to.not.equal(endpointIdentity('openai', 'https://x.example/v2'));
      expect(endpointIdentity('openai_compatible', null)).to.equal('');
    });
    it('knows Anthropic has no embeddings', () => {
      expect(supportsType('anthropic', 'embedding')).to.equal(false);
      expect(supportsType('anthropic', 'llm')).to.equal(true);
      expect(supportsType('ollama', 'embedding')).to.equal(true);
    });
  });

  describe('readJsonAnswer', () => {
    const validate = validatorFor({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false });
    it('reads plain, fenced and prose-wrapped JSON', () => {
      expect(readJsonAnswer('{"a":1}', validate)).to.deep.equal({ ok: true, value: { a: 1 } });
      expect(readJsonAnswer('```json\n{"a":2}\n```', validate)).to.deep.equal({ ok: true, value: { a: 2 } });
      expect(readJsonAnswer('Here it is: {"a":3} hope it helps', validate)).to.deep.equal({ ok: true, value: { a: 3 } });
    });
    it('names what is wrong', () => {
      const bad = readJsonAnswer('{"a":"x","b":1}', validate);
      expect(bad.ok).to.equal(false);
      expect((bad as { problem: string }).problem)
        .to.include('/a must be integer')
        .and.include('(b)');
      expect((readJsonAnswer('', validate) as { problem: string }).problem).to.equal('the reply was empty');
      expect((readJsonAnswer('nope', validate) as { problem: string }).problem).to.include('not valid JSON');
    });
  });
});
