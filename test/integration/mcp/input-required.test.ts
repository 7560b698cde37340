import { expect } from 'chai';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { mcpFetch, modernRequest, responseOf, type McpReply } from '../../helpers/mcp-http.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { startFixtureHttp, type ChildServer } from '../../helpers/upstreams.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const ACCEPT_NAME = (name: string) => ({ action: 'accept', content: { name } });
const SAMPLED = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' });
const ROOTS = { roots: [{ uri: 'file:///work/project', name: 'Project' }] };

interface Route {
  name: string;
  url: () => string;
  headers: () => Record<string, string>;
}

/**
 * Input-required results (SEP-2322) for 2026-07-28 callers: the fixture upstream (over Streamable
 * HTTP, so each of its requests is told to its own caller) asks for input mid-call the legacy way;
 * the gateway answers the caller `input_required` and hands the retry's answers to the upstream.
 */
describe('MCP input-required results (2026-07-28)', () => {
  let t: TestServer;
  let upstream: ChildServer;
  let fixture: FixtureBundle;
  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS }, start: { mcp: { inputWaitMs: 1500 } } });
    upstream = await startFixtureHttp('http');
    fixture = await setupFixtureBundle(t.owner, t.url, { name: 'mrtr', upstreamUrl: upstream.url });
  });
  after(async () => {
    await t?.stop();
    await upstream?.stop();
  });

  const routes: Route[] = [
    { name: '/mcp/bundle', url: () => fixture.endpoint, headers: () => ({}) },
    { name: '/mcp/gateway', url: () => `${t.url}/mcp/gateway`, headers: () => ({ authorization: `Bearer ${t.ownerKey}` }) },
  ];

  for (const route of routes) {
    describe(route.name, () => {
      /** One 2026-07-28 request on the route; `capabilities` are the caller's. */
      async function send(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}): Promise<McpReply> {
        const { headers, body } = modernRequest(method, { ...params, _meta: { [CAPS]: capabilities } });
        return mcpFetch(route.url(), { body, headers: { ...headers, ...route.headers() } });
      }
      const call = (name: string, extra: Record<string, unknown> = {}, capabilities?: Record<string, unknown>) =>
        send('tools/call', { name, arguments: {}, ...extra }, capabilities);

      it('answers input_required for an upstream elicitation and completes the call with the retry', async () => {
        const caps = { elicitation: {} };
        const first = responseOf(await call('test_input_required_result_elicitation', {}, caps));
        expect(first.result.resultType).to.equal('input_required');
        expect(first.result.inputRequests).to.deep.equal({
          user_name: {
            method: 'elicitation/create',
            params: {
              message: 'What is your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            },
          },
        });
        expect(first.result.requestState).to.be.a('string');
        const second = responseOf(
          await call(
            'test_input_required_result_elicitation',
            { inputResponses: { user_name: ACCEPT_NAME('Alice') }, requestState: first.result.requestState },
            caps,
          ),
        );
        expect(second.result).to.deep.equal({ content: [{ type: 'text', text: 'Hello, Alice!' }], resultType: 'complete' });
      });

      it('asks for every request of one moment at once, and runs several rounds with a new state each', async () => {
        const caps = { elicitation: {}, sampling: {}, roots: {} };
        const first = responseOf(await call('test_input_required_result_multiple_inputs', {}, caps)).result;
        expect(Object.keys(first.inputRequests).sort()).to.deep.equal(['client_roots', 'greeting', 'user_name']);
        expect(first.inputRequests.greeting.method).to.equal('sampling/createMessage');
        expect(first.inputRequests.client_roots).to.deep.equal({ method: 'roots/list', params: {} });
        const done = responseOf(
          await call(
            'test_input_required_result_multiple_inputs',
            {
              inputResponses: { user_name: ACCEPT_NAME('Bob'), greeting: SAMPLED('Hi there'), client_roots: ROOTS },
              requestState: first.requestState,
            },
            caps,
          ),
        ).result;
        expect(done.content[0].text).to.equal('Hi there Bob (1 roots)');

        const r1 = responseOf(await call('test_input_required_result_multi_round', {}, caps)).result;
        expect(Object.keys(r1.inputRequests)).to.deep.equal(['step1']);
        const r2 = responseOf(
          await call(
            'test_input_required_result_multi_round',
            { inputResponses: { step1: ACCEPT_NAME('Carol') }, requestState: r1.requestState },
            caps,
          ),
        ).result;
        expect(r2.resultType).to.equal('input_required');
        expect(Object.keys(r2.inputRequests)).to.deep.equal(['step2']);
        expect(r2.requestState).to.not.equal(r1.requestState);
        // The first round's state is spent: a replay of it is refused.
        const stale = responseOf(
          await call(
            'test_input_required_result_multi_round',
            { inputResponses: { step1: ACCEPT_NAME('Eve') }, requestState: r1.requestState },
            caps,
          ),
        );
        expect(stale.error.code).to.equal(-32602);
        const r3 = responseOf(
          await call(
            'test_input_required_result_multi_round',
            { inputResponses: { step2: { action: 'accept', content: { color: 'green' } } }, requestState: r2.requestState },
            caps,
          ),
        ).result;
        expect(r3.content[0].text).to.equal('Carol likes green');
      });

      it('serves prompts/get the same way', async () => {
        const caps = { elicitation: {} };
        const first = responseOf(await send('prompts/get', { name: 'test_input_required_result_prompt' }, caps)).result;
        expect(first.inputRequests.user_context.method).to.equal('elicitation/create');
        const done = responseOf(
          await send(
            'prompts/get',
            {
              name: 'test_input_required_result_prompt',
              inputResponses: { user_context: { action: 'accept', content: { context: 'release notes' } } },
              requestState: first.requestState,
            },
            caps,
          ),
        ).result;
        expect(done.messages[0].content.text).to.equal('Prompt with context: release notes');
        expect(done.resultType).to.equal('complete');
      });

      it('refuses a tampered requestState, or one presented for another request, with -32602', async () => {
        const caps = { elicitation: {} };
        const first = responseOf(await call('test_input_required_result_tampered_state', {}, caps)).result;
        const inputResponses = { confirm: { action: 'accept', content: { ok: true } } };
        for (const requestState of [
          `${first.requestState}-TAMPERED`,
          first.requestState.replace(/\.[^.]+\./, '.eyJlIjoieCJ9.'),
          'garbage',
        ]) {
          const reply = await call('test_input_required_result_tampered_state', { inputResponses, requestState }, caps);
          expect(responseOf(reply).error.code).to.equal(-32602);
        }
        const elsewhere = await call(
          'test_input_required_result_request_state',
          { inputResponses, requestState: first.requestState },
          caps,
        );
        expect(responseOf(elsewhere).error).to.deep.include({
          code: -32602,
          message: 'Invalid params: requestState belongs to another request',
        });
        const done = responseOf(
          await call('test_input_required_result_tampered_state', { inputResponses, requestState: first.requestState }, caps),
        );
        expect(done.result.content[0].text).to.equal('state-ok: action=accept, ok=true');
      });

      it('asks only for what the caller declared; a call that fails for want of a capability is -32021 (HTTP 400)', async () => {
        const partial = responseOf(await call('test_input_required_result_capabilities', {}, { sampling: {} })).result;
        expect(Object.keys(partial.inputRequests)).to.deep.equal(['capital_question']);

        const refused = await call('test_missing_capability', {}, {});
        expect(refused.status).to.equal(400);
        expect(responseOf(refused).error).to.deep.include({ code: -32021 });
        expect(responseOf(refused).error.data).to.deep.equal({ requiredCapabilities: { sampling: {} } });
        const allowed = responseOf(await call('test_missing_capability', {}, { sampling: {} })).result;
        expect(allowed.resultType).to.equal('input_required');
      });

      it('validates inputResponses, and completes a stateless retry whose answers carry the upstream keys', async () => {
        const caps = { elicitation: {} };
        for (const inputResponses of [null, [1], { user_name: 12345 }]) {
          const reply = await call('test_input_required_result_elicitation', { inputResponses }, caps);
          expect(responseOf(reply).error.code).to.equal(-32602);
        }
        const wrong = responseOf(
          await call('test_input_required_result_elicitation', { inputResponses: { other: ACCEPT_NAME('x') } }, caps),
        );
        expect(wrong.result.resultType).to.equal('input_required');
        const stateless = responseOf(
          await call(
            'test_input_required_result_elicitation',
            { inputResponses: { user_name: ACCEPT_NAME('Dan'), extra: { a: 1 } } },
            caps,
          ),
        );
        expect(stateless.result.content[0].text).to.equal('Hello, Dan!');
      });

      it('gives concurrent callers each their own requests and answers', async () => {
        const caps = { elicitation: {} };
        const names = ['Ann', 'Ben', 'Cid', 'Dee'];
        const firsts = await Promise.all(names.map(() => call('test_input_required_result_elicitation', {}, caps)));
        const states = firsts.map((r) => responseOf(r).result.requestState as string);
        expect(new Set(states).size).to.equal(names.length);
        const done = await Promise.all(
          names.map((name, i) =>
            call(
              'test_input_required_result_elicitation',
              { inputResponses: { user_name: ACCEPT_NAME(name) }, requestState: states[i] },
              caps,
            ),
          ),
        );
        expect(done.map((r) => responseOf(r).result.content[0].text)).to.deep.equal(names.map((n) => `Hello, ${n}!`));
      });

      it('after the hold ends, a retry with the old state replays the call and completes it', async () => {
        const caps = { elicitation: {} };
        const first = responseOf(await call('test_input_required_result_elicitation', {}, caps)).result;
        await new Promise((r) => setTimeout(r, 2000));
        const late = responseOf(
          await call(
            'test_input_required_result_elicitation',
            { inputResponses: { user_name: ACCEPT_NAME('Fay') }, requestState: first.requestState },
            caps,
          ),
        );
        expect(late.result.content[0].text).to.equal('Hello, Fay!');
      });
    });
  }

  it('refuses the state of one route on the other', async () => {
    const { headers, body } = modernRequest('tools/call', {
      name: 'test_input_required_result_elicitation',
      arguments: {},
      _meta: { [CAPS]: { elicitation: {} } },
    });
    const first = responseOf(await mcpFetch(fixture.endpoint, { body, headers })).result;
    const retry = modernRequest('tools/call', {
      name: 'test_input_required_result_elicitation',
      arguments: {},
      inputResponses: { user_name: ACCEPT_NAME('Mallory') },
      requestState: first.requestState,
      _meta: { [CAPS]: { elicitation: {} } },
    });
    const reply = await mcpFetch(`${t.url}/mcp/gateway`, {
      body: retry.body,
      headers: { ...retry.headers, authorization: `Bearer ${t.ownerKey}` },
    });
    expect(responseOf(reply).error).to.deep.include({ code: -32602, message: 'Invalid params: requestState belongs to another request' });
  });
});
