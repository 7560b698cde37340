import { expect } from 'chai';
import { AiError } from '../../../src/ai/ai-errors.js';
import { createEmbeddingClient, createLlmClient } from '../../../src/ai/ai-clients.js';
import type { AiProviderSpec, ChatEvent, LlmClient } from '../../../src/ai/ai-types.js';
import { OutboundPolicy } from '../../../src/lib/outbound-policy.js';
import { FakeAnthropic } from '../../helpers/fake-anthropic.js';
import { FakeOpenAi, fakeVector } from '../../helpers/fake-openai.js';

const KEY = 'sk-test-0123456789abcdefghijklmnop';
const policy = new OutboundPolicy(['127.0.0.1:*']);
/** Makes the SDKs' retry backoff instant (both honour `retry-after-ms`). */
const FAST_RETRY = { 'retry-after-ms': '5' };

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

async function failure(p: Promise<unknown>): Promise<AiError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(AiError);
    return err as AiError;
  }
  throw new Error('expected an AiError');
}

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 0 } },
  required: ['name', 'count'],
  additionalProperties: false,
};

describe('AI adapters against loopback fakes of the vendor APIs', function () {
  this.timeout(30000);

  describe('OpenAI and OpenAI-compatible (openai SDK)', () => {
    let fake: FakeOpenAi;
    const spec = (over: Partial<AiProviderSpec> = {}): AiProviderSpec => ({
      provider: 'openai',
      model: 'gpt-test',
      endpoint: fake.url,
      apiKey: KEY,
      config: { max_retries: 1 },
      ...over,
    });
    const llm = (over: Partial<AiProviderSpec> = {}, deps = {}): LlmClient => createLlmClient(spec(over), { policy, ...deps });

    before(async () => {
      fake = await new FakeOpenAi().start();
    });
    after(() => fake.stop());
    beforeEach(() => fake.reset());

    it('streams reasoning and text deltas, then done with the finish reason and usage', async () => {
      fake.reply('chat', { reasoning: 'Let me think about this carefully.', content: 'Hello there, this is a streamed answer.' });
      const events = await collect(llm().chatStream({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 50, temperature: 0.2 }));
      const text = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
      const thinking = events.filter((e) => e.type === 'thinking').map((e) => (e as { text: string }).text);
      expect(text.length).to.be.greaterThan(1);
      expect(text.join('')).to.equal('Hello there, this is a streamed answer.');
      expect(thinking.join('')).to.equal('Let me think about this carefully.');
      expect(events.findIndex((e) => e.type === 'thinking')).to.be.lessThan(events.findIndex((e) => e.type === 'text'));
      expect(events.at(-1)).to.deep.equal({ type: 'done', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 10 } });
      const [req] = fake.requestsTo('/chat/completions');
      expect(req!.headers.authorization).to.equal(`Bearer ${KEY}`);
      expect(req!.body).to.include({ model: 'gpt-test', stream: true, max_completion_tokens: 50, temperature: 0.2 });
      expect(req!.body.messages).to.deep.equal([{ role: 'user', content: 'hi' }]);
    });

    it('reports a completion cut at the token limit as finishReason length', async () => {
      fake.reply('chat', { content: 'partial', finishReason: 'length' });
      const result = await llm().chat({ messages: [{ role: 'user', content: 'hi' }] });
      expect(result).to.include({ text: 'partial', finishReason: 'length' });
    });

    it('sends no Authorization header to a keyless local server, max_tokens and pass-through config', async () => {
      const client = llm({ provider: 'ollama', apiKey: null, config: { max_tokens: 77, top_p: 0.5, seed: 7, model: 'ignored' } });
      expect((await client.chat({ messages: [{ role: 'user', content: 'hi' }] })).text).to.equal('ok');
      const [req] = fake.requestsTo('/chat/completions');
      expect(req!.headers.authorization).to.equal(undefined);
      expect(req!.body).to.include({ max_tokens: 77, top_p: 0.5, seed: 7, model: 'gpt-test' });
      expect(req!.body).to.not.have.property('max_completion_tokens');
    });

    it('asks for schema-guided JSON and returns the validated value (fences tolerated)', async () => {
      fake.reply('chat', { content: '```json\n{"name": "widget", "count": 3}\n```' });
      const value = await llm().structured<{ name: string; count: number }>({
        messages: [{ role: 'user', content: 'make one' }],
        schema: SCHEMA,
        schemaName: 'thing',
      });
      expect(value).to.deep.equal({ name: 'widget', count: 3 });
      const [req] = fake.requestsTo('/chat/completions');
      expect(req!.body.response_format).to.deep.equal({
        type: 'json_schema',
        json_schema: { name: 'thing', schema: SCHEMA, strict: false },
      });
      expect(req!.body.messages[0].role).to.equal('system');
      expect(req!.body.messages[0].content).to.include('"required":["name","count"]');
    });

    it('repairs once: invalid JSON, then a valid answer after the errors are sent back', async () => {
      fake.reply('chat', { content: '{"name": "widget", "count": -1, "extra": true}' }, { content: '{"name":"widget","count":1}' });
      const value = await llm().structured({ messages: [{ role: 'user', content: 'make one' }], schema: SCHEMA, schemaName: 'thing' });
      expect(value).to.deep.equal({ name: 'widget', count: 1 });
      const reqs = fake.requestsTo('/chat/completions');
      expect(reqs).to.have.length(2);
      const repair = reqs[1]!.body.messages.at(-1);
      expect(repair.role).to.equal('user');
      expect(repair.content).to.include('/count must be >= 0');
      expect(repair.content).to.include('extra');
      expect(reqs[1]!.body.messages.at(-2)).to.deep.equal({ role: 'assistant', content: '{"name": "widget", "count": -1, "extra": true}' });
    });

    it('gives up with invalid_output after one repair round', async () => {
      fake.reply('chat', { content: 'I cannot do JSON, sorry.' }, { content: '{"name": ' });
      const err = await failure(llm().structured({ messages: [{ role: 'user', content: 'x' }], schema: SCHEMA, schemaName: 'thing' }));
      expect(err.kind).to.equal('invalid_output');
      expect(err.message).to.match(/not valid JSON/);
      expect(fake.requestsTo('/chat/completions')).to.have.length(2);
    });

    it('uses json_object or the prompt alone when the config says so', async () => {
      fake.reply('chat', { content: '{"name":"a","count":0}' }, { content: '{"name":"b","count":0}' });
      await llm({ config: { structured_output: 'json_object' } }).structured({
        messages: [{ role: 'user', content: 'x' }],
        schema: SCHEMA,
        schemaName: 's',
      });
      await llm({ config: { structured_output: 'prompt' } }).structured({
        messages: [{ role: 'user', content: 'x' }],
        schema: SCHEMA,
        schemaName: 's',
      });
      const [a, b] = fake.requestsTo('/chat/completions');
      expect(a!.body.response_format).to.deep.equal({ type: 'json_object' });
      expect(b!.body).to.not.have.property('response_format');
    });

    it('embeds: base64 from OpenAI, floats from compatible servers, in input order, batched, with dimensions', async () => {
      const texts = Array.from({ length: 130 }, (_, i) => `text ${i}`);
      const vectors = await createEmbeddingClient(spec({ model: 'embed-test', config: { dimensions: 4 } }), { policy }).embed(texts);
      expect(vectors).to.have.length(130);
      expect(vectors[0]).to.be.instanceOf(Float32Array);
      expect(Array.from(vectors[129]!)).to.deep.equal(Array.from(Float32Array.from(fakeVector('text 129', 4))));
      const reqs = fake.requestsTo('/embeddings');
      expect(reqs.map((r) => r.body.input.length)).to.deep.equal([128, 2]);
      expect(reqs[0]!.body).to.include({ encoding_format: 'base64', dimensions: 4, model: 'embed-test' });

      fake.reset();
      const local = createEmbeddingClient(spec({ provider: 'vllm', apiKey: null }), { policy });
      const [v] = await local.embed(['hello']);
      expect(Array.from(v!)).to.deep.equal(Array.from(Float32Array.from(fakeVector('hello', 8))));
      expect(fake.requestsTo('/embeddings')[0]!.body.encoding_format).to.equal('float');
      expect(await local.embed([])).to.deep.equal([]);
    });

    it('refuses embeddings that are not vectors, or fewer than the inputs', async () => {
      const client = createEmbeddingClient(spec({ provider: 'vllm' }), { policy });
      fake.reply('embeddings', { embeddings: [[1, 2], 'nonsense'] });
      expect((await failure(client.embed(['a', 'b']))).kind).to.equal('bad_response');
      fake.reply('embeddings', { embeddings: [[1, 2]] });
      expect((await failure(client.embed(['a', 'b']))).message).to.match(/1 embeddings for 2 inputs/);
    });

    it('maps 401 to auth and never repeats the key, even when the vendor echoes it', async () => {
      fake.reply('chat', {
        status: 401,
        error: { message: `Incorrect API key provided: ${KEY}. Key ${KEY.slice(0, 20)} is bad`, code: 'invalid_api_key' },
      });
      const err = await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(err.kind).to.equal('auth');
      expect(err.status).to.equal(401);
      expect(err.code).to.equal('ai_auth');
      expect(err.message).to.include('rejected the API key');
      expect(err.message).to.not.include(KEY);
      expect(err.message).to.not.include(KEY.slice(0, 20));
      expect(JSON.stringify(err)).to.not.include(KEY.slice(3, 20));
    });

    it('maps 403 to forbidden and 404 to model_not_found (needs reconfiguration)', async () => {
      fake.reply('chat', { status: 403, error: { message: 'Project lacks access' } });
      expect((await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('forbidden');
      fake.strictModels = true;
      const err = await failure(llm({ model: 'gone-model' }).chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(err.kind).to.equal('model_not_found');
      expect(err.needsReconfiguration).to.equal(true);
      expect(err.message).to.include('gone-model');
    });

    it('retries 429 and 5xx with backoff (bounded), then maps them; a retry that succeeds is invisible', async () => {
      fake.reply(
        'chat',
        { status: 429, error: { message: 'slow down' }, headers: FAST_RETRY },
        { status: 429, error: { message: 'slow down' }, headers: FAST_RETRY },
      );
      const limited = await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(limited.kind).to.equal('rate_limited');
      expect(fake.requestsTo('/chat/completions')).to.have.length(2);

      fake.reset();
      fake.reply('chat', { status: 500, headers: FAST_RETRY }, { status: 503, headers: FAST_RETRY });
      expect((await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('unavailable');

      fake.reset();
      fake.reply('chat', { status: 502, headers: FAST_RETRY }, { content: 'recovered' });
      expect((await llm().chat({ messages: [{ role: 'user', content: 'x' }] })).text).to.equal('recovered');
      expect(fake.requestsTo('/chat/completions')).to.have.length(2);
    });

    it('maps garbage bodies to bad_response', async () => {
      fake.reply('chat', { raw: '<html>gateway page</html>', contentType: 'text/html' });
      expect((await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('bad_response');
      fake.reply('embeddings', { raw: '{"data": [', contentType: 'application/json' });
      expect((await failure(createEmbeddingClient(spec(), { policy }).embed(['a']))).kind).to.equal('bad_response');
      fake.reply('chat', { raw: 'data: {not json}\n\n', contentType: 'text/event-stream' });
      expect((await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('bad_response');
    });

    it('does not follow redirects', async () => {
      fake.reply('chat', { status: 302, raw: '', headers: { location: 'http://169.254.169.254/latest' } });
      const err = await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(err.kind).to.equal('bad_response');
      expect(err.message).to.include('redirect');
      expect(fake.requests).to.have.length(1);
    });

    it('times out a slow answer and a stalled stream after config.timeout_ms', async () => {
      fake.reply('chat', { delayMs: 2000 });
      const slow = await failure(llm({ config: { timeout_ms: 300, max_retries: 0 } }).chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(slow.kind).to.equal('timeout');
      expect(slow.message).to.include('300 ms');
      fake.reply('chat', { content: 'a long answer that stalls', chunks: ['a ', 'long ', 'answer'], stallAfterChunks: 1 });
      const started = Date.now();
      const stalled = await failure(
        llm({ config: { timeout_ms: 300, max_retries: 0 } }).chat({ messages: [{ role: 'user', content: 'x' }] }),
      );
      expect(stalled.kind).to.equal('timeout');
      expect(Date.now() - started).to.be.lessThan(2000);
    });

    it('cancels when the caller goes away: the request is aborted at the vendor', async () => {
      fake.reply('chat', { content: 'x'.repeat(400), chunkDelayMs: 50 });
      const controller = new AbortController();
      const seen: string[] = [];
      const err = await failure(
        (async () => {
          for await (const e of llm().chatStream({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal })) {
            if (e.type === 'text') seen.push(e.text);
            if (seen.length === 2) controller.abort();
          }
        })(),
      );
      expect(err.kind).to.equal('cancelled');
      await new Promise((r) => setTimeout(r, 100));
      expect(fake.requests[0]!.aborted).to.equal(true);
    });

    it('stops reading when the consumer breaks out of the stream', async () => {
      fake.reply('chat', { content: 'y'.repeat(400), chunkDelayMs: 30 });
      for await (const e of llm().chatStream({ messages: [{ role: 'user', content: 'x' }] })) if (e.type === 'text') break;
      await new Promise((r) => setTimeout(r, 150));
      expect(fake.requests[0]!.aborted).to.equal(true);
    });

    it('cuts off an enormous answer (characters) and an enormous body (bytes)', async () => {
      fake.reply('chat', { content: 'z'.repeat(50_000), chunks: Array.from({ length: 50 }, () => 'z'.repeat(1000)) });
      const long = await failure(llm({}, { maxOutputChars: 10_000 }).chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(long.kind).to.equal('bad_response');
      expect(long.message).to.include('10000 characters');
      fake.reply('embeddings', { embeddings: [Array.from({ length: 200_000 }, () => 0.5)] });
      const big = await failure(createEmbeddingClient(spec({ provider: 'vllm' }), { policy, maxResponseBytes: 100_000 }).embed(['a']));
      expect(big.kind).to.equal('bad_response');
      expect(big.message).to.include('100000 bytes');
      expect(fake.requestsTo('/embeddings'), 'a body too large is not retried').to.have.length(1);
    });

    it('refuses a loopback endpoint that is not allow-listed, without sending anything', async () => {
      const err = await failure(
        createLlmClient(spec(), { policy: new OutboundPolicy([]) }).chat({ messages: [{ role: 'user', content: 'x' }] }),
      );
      expect(err.kind).to.equal('refused');
      expect(err.message).to.include('TOOLGATE_OUTBOUND_ALLOWLIST');
      expect(fake.requests).to.have.length(0);
    });

    it('reports connection refused as unavailable, and OpenAI without a key as auth', async () => {
      const err = await failure(
        llm({ endpoint: 'http://127.0.0.1:9/v1', config: { max_retries: 0 } }).chat({ messages: [{ role: 'user', content: 'x' }] }),
      );
      expect(err.kind).to.equal('unavailable');
      expect(err.answered).to.equal(false);
      expect((await failure(llm({ apiKey: null }).chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('auth');
      expect(fake.requests).to.have.length(0);
    });
  });

  describe('Anthropic (@anthropic-ai/sdk)', () => {
    let fake: FakeAnthropic;
    const spec = (over: Partial<AiProviderSpec> = {}): AiProviderSpec => ({
      provider: 'anthropic',
      model: 'claude-test',
      endpoint: fake.url,
      apiKey: KEY,
      config: { max_retries: 1 },
      ...over,
    });
    const llm = (over: Partial<AiProviderSpec> = {}): LlmClient => createLlmClient(spec(over), { policy });

    before(async () => {
      fake = await new FakeAnthropic().start();
    });
    after(() => fake.stop());
    beforeEach(() => fake.reset());

    it('streams thinking then text, with the key in x-api-key, system text apart and thinking requested', async () => {
      fake.reply({ thinking: 'Considering the options at length.', text: 'The answer is forty-two, as expected.' });
      const events = await collect(
        llm({ config: { thinking_budget_tokens: 1500 } }).chatStream({
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'question' },
          ],
          thinking: true,
          temperature: 0.3,
          maxTokens: 100,
        }),
      );
      const text = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
      const thinking = events.filter((e) => e.type === 'thinking').map((e) => (e as { text: string }).text);
      expect(thinking.length).to.be.greaterThan(1);
      expect(thinking.join('')).to.equal('Considering the options at length.');
      expect(text.join('')).to.equal('The answer is forty-two, as expected.');
      expect(events.at(-1)).to.deep.equal({ type: 'done', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 20 } });
      const [req] = fake.requests;
      expect(req!.path).to.equal('/v1/messages');
      // The SDK sends the key as x-api-key or as a bearer token, depending on its version.
      expect([req!.headers['x-api-key'], req!.headers.authorization]).to.include.oneOf([KEY, `Bearer ${KEY}`]);
      expect(req!.body).to.include({ model: 'claude-test', system: 'Be brief.', stream: true, max_tokens: 2524 });
      expect(req!.body.thinking).to.deep.equal({ type: 'enabled', budget_tokens: 1500 });
      expect(req!.body).to.not.have.property('temperature');
      expect(req!.body.messages).to.deep.equal([{ role: 'user', content: 'question' }]);
    });

    it('gets structured output through a forced tool call', async () => {
      fake.reply({ toolUse: { input: { name: 'gadget', count: 2 } } });
      const value = await llm().structured({ messages: [{ role: 'user', content: 'make one' }], schema: SCHEMA, schemaName: 'thing' });
      expect(value).to.deep.equal({ name: 'gadget', count: 2 });
      const body = fake.requests[0]!.body;
      expect(body.tool_choice).to.deep.equal({ type: 'tool', name: 'thing' });
      expect(body.tools[0].input_schema).to.deep.equal(SCHEMA);
    });

    it('repairs a tool call whose input fails the schema with an error tool_result', async () => {
      fake.reply({ toolUse: { input: { name: '', count: 'many' } } }, { toolUse: { input: { name: 'fixed', count: 0 } } });
      const value = await llm().structured({ messages: [{ role: 'user', content: 'make one' }], schema: SCHEMA, schemaName: 'thing' });
      expect(value).to.deep.equal({ name: 'fixed', count: 0 });
      const second = fake.requests[1]!.body.messages;
      expect(second.at(-2).content[0]).to.include({ type: 'tool_use', name: 'thing' });
      expect(second.at(-1).content[0]).to.include({ type: 'tool_result', is_error: true });
      expect(second.at(-1).content[0].content).to.include('/count must be integer');
    });

    it('wraps a non-object schema in {value}', async () => {
      fake.reply({ toolUse: { input: { value: ['a', 'b'] } } });
      const value = await llm().structured({
        messages: [{ role: 'user', content: 'x' }],
        schema: { type: 'array', items: { type: 'string' } },
        schemaName: 'list',
      });
      expect(value).to.deep.equal(['a', 'b']);
    });

    it('maps 401, 404 (model), 529 overloaded, an error event mid-stream and garbage', async () => {
      fake.reply({ status: 401, error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` } });
      const auth = await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(auth.kind).to.equal('auth');
      expect(auth.message).to.not.include(KEY);
      fake.reply({ status: 404, error: { type: 'not_found_error', message: 'model: claude-nope' } });
      expect((await failure(llm({ model: 'claude-nope' }).chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal(
        'model_not_found',
      );
      fake.reply(
        { status: 529, error: { type: 'overloaded_error', message: 'Overloaded' }, headers: FAST_RETRY },
        { status: 529, error: { type: 'overloaded_error', message: 'Overloaded' }, headers: FAST_RETRY },
      );
      expect((await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('unavailable');
      fake.reply({ text: 'partial answer here', errorMidStream: { type: 'overloaded_error', message: 'Overloaded' } });
      const mid = await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }));
      expect(mid.kind).to.equal('unavailable');
      expect(mid.message).to.include('Overloaded');
      fake.reply({ raw: 'not an event stream at all' });
      expect((await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('bad_response');
    });

    it('needs a key, and refuses embeddings', async () => {
      expect((await failure(llm({ apiKey: null }).chat({ messages: [{ role: 'user', content: 'x' }] }))).kind).to.equal('auth');
      expect(fake.requests).to.have.length(0);
      expect(() => createEmbeddingClient(spec(), { policy })).to.throw(AiError, /no embeddings/);
    });

    it('cancels a streaming answer when the caller aborts', async () => {
      fake.reply({ text: 'w'.repeat(300), chunkDelayMs: 40 });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 150);
      const err = await failure(llm().chat({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal }));
      expect(err.kind).to.equal('cancelled');
    });
  });
});
