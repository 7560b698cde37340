import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTracing, stopTracing, tracingOn } from '../../../src/telemetry/tracing.js';
import { mcpFetch, modernRequest, RawSession } from '../../helpers/mcp-http.js';
import { OtlpReceiver } from '../../helpers/otlp-receiver.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { register, waitConnected } from '../../helpers/upstreams.js';

/**
 * A minimal Streamable HTTP upstream (JSON answers) that keeps, for every `tools/call` it serves,
 * the `_meta` and the `traceparent` header it arrived with.
 */
class RecordingUpstream {
  readonly calls: { meta: Record<string, unknown> | undefined; header: string | undefined; args: unknown }[] = [];
  private server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method: string; params?: any };
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      let result: unknown = {};
      if (msg.method === 'initialize') {
        result = {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'recording', version: '1' },
        };
      } else if (msg.method === 'tools/list') {
        result = { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] };
      } else if (msg.method === 'tools/call') {
        this.calls.push({ meta: msg.params._meta, header: req.headers.traceparent as string | undefined, args: msg.params.arguments });
        result = { content: [{ type: 'text', text: 'ok' }] };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const SERVER = 2;
const CLIENT = 3;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SECRET_ARGUMENT = 'argument-value-91d2e';

describe('OpenTelemetry tracing through the gateway', function () {
  this.timeout(30_000);
  let t: TestServer;
  let upstream: RecordingUpstream;
  let receiver: OtlpReceiver;
  let endpoint: string;
  let bundleId: string;
  const saved = { ...process.env };

  /** Tracing on, exporting to the loopback receiver with `protocol`. */
  function trace(protocol: 'http/json' | 'http/protobuf', receiverUrl: string): void {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiverUrl;
    process.env.OTEL_SERVICE_NAME = 'toolgate-under-test';
    startTracing({ exporter: 'otlp', protocol }, '0.1.0');
  }

  before(async () => {
    receiver = new OtlpReceiver();
    const receiverUrl = await receiver.start();
    trace('http/json', receiverUrl);
    upstream = new RecordingUpstream();
    const upstreamUrl = await upstream.start();
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    const server = await register(t.owner, { name: 'recording', transport: 'streamable_http', url: upstreamUrl });
    await waitConnected(t.owner, server.id, 1);
    const tools = await t.owner.get(`/api/v1/servers/${server.id}/tools`);
    const created = await t.owner.post('/api/v1/bundles', { name: 'traced', tools: [{ tool_id: tools.body.items[0].id }] });
    bundleId = created.body.id;
    endpoint = `${t.url}/mcp/bundle/${created.body.bundle_key}`;
    await stopTracing();
    receiver.spans.length = 0;
  });

  after(async () => {
    await stopTracing();
    await t?.stop();
    await upstream?.stop();
    await receiver?.stop();
    process.env = saved;
  });

  for (const protocol of ['http/json', 'http/protobuf'] as const) {
    it(`continues the caller's trace (params._meta) through the upstream call, exported over OTLP ${protocol}`, async () => {
      receiver.spans.length = 0;
      upstream.calls.length = 0;
      trace(protocol, process.env.OTEL_EXPORTER_OTLP_ENDPOINT!);
      const { headers, body } = modernRequest('tools/call', {
        name: 'echo',
        arguments: { text: SECRET_ARGUMENT },
        _meta: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      });
      const answer = await mcpFetch(endpoint, { body, headers });
      expect(answer.status).to.equal(200);
      await stopTracing();

      const server = receiver.spans.find((s) => s.kind === SERVER && s.name === 'tools/call echo')!;
      expect(server, JSON.stringify(receiver.spans.map((s) => s.name))).to.not.equal(undefined);
      expect(server.contentType).to.include(protocol === 'http/json' ? 'json' : 'protobuf');
      expect(server.traceId).to.equal(CALLER_TRACE);
      expect(server.parentSpanId).to.equal(CALLER_SPAN);
      expect(server.attributes).to.include({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'mcp.protocol.version': '2026-07-28',
        'toolgate.bundle.id': bundleId,
      });
      const client = receiver.spans.find((s) => s.kind === CLIENT)!;
      expect(client.name).to.equal('tools/call echo');
      expect(client.traceId).to.equal(CALLER_TRACE);
      expect(client.parentSpanId).to.equal(server.spanId);
      expect(client.attributes).to.include({ 'mcp.method.name': 'tools/call', 'server.address': 'recording' });
      // One trace: the gateway's spans of this call all carry the caller's trace id.
      expect(new Set(receiver.spans.filter((s) => s.name.startsWith('tools/call')).map((s) => s.traceId))).to.deep.equal(
        new Set([CALLER_TRACE]),
      );

      // The upstream saw the trace in _meta and in the HTTP header, with the client span as parent.
      expect(upstream.calls).to.have.length(1);
      const expected = `00-${CALLER_TRACE}-${client.spanId}-01`;
      expect(upstream.calls[0]!.meta?.traceparent).to.equal(expected);
      expect(upstream.calls[0]!.header).to.equal(expected);
      expect(upstream.calls[0]!.args).to.deep.equal({ text: SECRET_ARGUMENT });

      // No argument value reaches a span.
      expect(JSON.stringify(receiver.spans)).not.to.include(SECRET_ARGUMENT);
    });
  }

  it('continues a trace from the HTTP traceparent header, and names a session on a stateful request', async () => {
    receiver.spans.length = 0;
    trace('http/json', process.env.OTEL_EXPORTER_OTLP_ENDPOINT!);
    const session = new RawSession(endpoint, '2025-11-25');
    await session.initialize();
    const { body, headers } = modernRequest('tools/call', { name: 'echo', arguments: { text: 'x' } });
    const answer = await mcpFetch(endpoint, { body, headers: { ...headers, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    expect(answer.status).to.equal(200);
    await session.call('echo', { text: 'y' });
    await stopTracing();
    const fromHeader = receiver.spans.find((s) => s.kind === SERVER && s.traceId === CALLER_TRACE)!;
    expect(fromHeader.name).to.equal('tools/call echo');
    expect(fromHeader.parentSpanId).to.equal(CALLER_SPAN);
    const initialize = receiver.spans.find((s) => s.name === 'initialize')!;
    expect(initialize.kind).to.equal(SERVER);
    const stateful = receiver.spans.filter((s) => s.kind === SERVER && s.name === 'tools/call echo' && s.traceId !== CALLER_TRACE);
    expect(stateful).to.have.length(1);
    expect(stateful[0]!.attributes['mcp.session.id']).to.be.a('string').and.not.equal('');
    expect(stateful[0]!.attributes['mcp.protocol.version']).to.equal('2025-11-25');
  });

  it('records the JSON-RPC error code of a failed request', async () => {
    receiver.spans.length = 0;
    trace('http/json', process.env.OTEL_EXPORTER_OTLP_ENDPOINT!);
    const { headers, body } = modernRequest('tools/call', { name: 'no-such-tool', arguments: {} });
    await mcpFetch(endpoint, { body, headers });
    await stopTracing();
    const span = receiver.spans.find((s) => s.name === 'tools/call no-such-tool')!;
    expect(span.attributes['rpc.jsonrpc.error_code']).to.equal(-32602);
    expect(span.attributes['error.type']).to.equal('-32602');
  });

  it('traces a REST operation as an HTTP server span named by its operationId', async () => {
    receiver.spans.length = 0;
    trace('http/protobuf', process.env.OTEL_EXPORTER_OTLP_ENDPOINT!);
    const listed = await t.owner.request('GET', '/api/v1/bundles', { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    expect(listed.status).to.equal(200);
    const missing = await t.owner.get('/api/v1/bundles/00000000-0000-4000-8000-000000000000');
    expect(missing.status).to.equal(404);
    await stopTracing();
    const list = receiver.spans.find((s) => s.name === 'listBundles')!;
    expect(list.kind).to.equal(SERVER);
    expect(list.traceId).to.equal(CALLER_TRACE);
    expect(list.attributes).to.include({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
    const get = receiver.spans.find((s) => s.name === 'getBundle')!;
    expect(get.attributes['http.response.status_code']).to.equal(404);
  });

  it('with tracing off, sends nothing and adds no trace context upstream', async () => {
    receiver.spans.length = 0;
    upstream.calls.length = 0;
    expect(tracingOn).to.equal(false);
    const { headers, body } = modernRequest('tools/call', { name: 'echo', arguments: { text: 'z' } });
    await mcpFetch(endpoint, { body, headers });
    expect(upstream.calls).to.have.length(1);
    expect(upstream.calls[0]!.meta?.traceparent).to.equal(undefined);
    expect(upstream.calls[0]!.header).to.equal(undefined);
    expect(receiver.spans).to.have.length(0);
  });
});
