import { expect } from 'chai';
import { FaultProxy } from '../../helpers/fault-proxy.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { ensurePythonClient, runPythonClient } from '../../helpers/python-client.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { startFixtureHttp, waitFor, type ChildServer } from '../../helpers/upstreams.js';

/**
 * The official MCP Python SDK (test/clients/python/mcp_client.py) as the client: sampling,
 * elicitation, roots and log messages relayed both ways over the legacy HTTP+SSE endpoint and over
 * Streamable HTTP, in front of the fixture over stdio and over SSE; and a call whose connection a
 * proxy cuts mid-call, resumed by the client with `Last-Event-ID`.
 */
describe('The MCP Python SDK as a client of the bundle endpoint', function () {
  this.timeout(180_000);
  let t: TestServer;
  let sseUpstream: ChildServer;
  const bundles: Record<string, FixtureBundle> = {};

  before(async () => {
    ensurePythonClient();
    [t, sseUpstream] = await Promise.all([startTestServer({ env: { ...LOOPBACK_UPSTREAMS } }), startFixtureHttp('sse')]);
    bundles.stdio = await setupFixtureBundle(t.owner, t.url, { name: 'py-stdio' });
    bundles.sse = await setupFixtureBundle(t.owner, t.url, { name: 'py-sse', upstreamUrl: sseUpstream.url, upstreamTransport: 'sse' });
  });
  after(async () => {
    await t?.stop();
    await sseUpstream?.stop();
  });

  for (const upstream of ['stdio', 'sse'] as const) {
    for (const route of ['sse', 'http'] as const) {
      it(`over ${route === 'sse' ? 'the legacy HTTP+SSE endpoint' : 'Streamable HTTP'}, fixture over ${upstream}: sampling, elicitation, roots and logs reach the Python client and its answers the upstream`, async () => {
        const endpoint = bundles[upstream]!.endpoint;
        const seen = await runPythonClient(['relay', route === 'sse' ? `${endpoint}/sse` : endpoint, route]).result;
        expect(seen.protocol).to.be.a('string');
        expect(seen.sampling).to.equal('LLM response: python sampled: hello from python');
        expect(seen.elicitation).to.equal('User response: action=accept, content={"username":"py-user","email":"py@example.com"}');
        expect(JSON.parse(seen.roots)).to.deep.include('file:///python/client/root');
        expect(seen.logging).to.equal('Tool with logging executed successfully');
        expect(seen.logged).to.deep.equal(['"Tool execution started"', '"Tool processing data"', '"Tool execution completed"']);
      });
    }
  }

  it('gets the response of a call whose connection a proxy cut mid-call (Last-Event-ID)', async () => {
    const url = new URL(t.url);
    const proxy = await new FaultProxy('127.0.0.1', Number(url.port)).start();
    try {
      const viaProxy = bundles.stdio!.endpoint.replace(`:${url.port}/`, `:${proxy.port}/`);
      const run = runPythonClient(['resume', viaProxy]);
      // The call sleeps 1.5 s reporting progress: cut its stream while it runs, then let the client reconnect.
      await waitFor('progress on the call stream', () => run.stderr.includes('streaming'), 20_000);
      proxy.block();
      await new Promise((r) => setTimeout(r, 150));
      proxy.restore();
      const seen = await run.result;
      expect(seen.is_error).to.equal(false);
      expect(seen.progress).to.be.greaterThan(0);
      expect(seen.text).to.match(/slept|1500/i);
    } finally {
      await proxy.stop();
    }
  });
});
