import { expect } from 'chai';
import { assertSseEventMatchesContract, SPEC } from '../helpers/contract.js';
import { setupFixtureBundle, type FixtureBundle } from '../helpers/fixture-bundle.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Json = Record<string, any>;

/** Every response of the contract that is an event stream: where, and what it says of its events. */
function eventStreams(): { where: string; schema: Json; events: Json | undefined }[] {
  const found: { where: string; schema: Json; events: Json | undefined }[] = [];
  for (const [path, item] of Object.entries(SPEC.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (typeof op !== 'object' || !op?.responses) continue;
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const stream = (response as Json).content?.['text/event-stream'];
        if (stream) found.push({ where: `${method.toUpperCase()} ${path} ${status}`, schema: stream.schema, events: op['x-sse-events'] });
      }
    }
  }
  return found;
}

describe('Event streams in openapi.yaml are typed with their event schemas', () => {
  it('declares, for every text/event-stream response, the schema of its events (not a bare string)', () => {
    const streams = eventStreams();
    expect(streams.length).to.be.greaterThan(6);
    for (const { where, schema, events } of streams) {
      expect(schema.contentMediaType, where).to.equal('text/event-stream');
      expect(schema.contentSchema?.$ref, where).to.match(/^#\/components\/schemas\//);
      const name = (schema.contentSchema.$ref as string).split('/').pop()!;
      expect(SPEC.components.schemas[name], `${where}: ${name}`).to.be.an('object');
      expect(Object.keys(events ?? {}).length, `${where}: x-sse-events`).to.be.greaterThan(0);
    }
  });

  describe('and the events the server sends match them', function () {
    this.timeout(60_000);
    let t: TestServer;
    let fx: FixtureBundle;
    before(async () => {
      t = await startTestServer();
      fx = await setupFixtureBundle(t.owner, t.url, { tools: ['echo'] });
    });
    after(() => t?.stop());

    it('legacy HTTP+SSE: the endpoint event and a JSON-RPC message event', async () => {
      const controller = new AbortController();
      const res = await fetch(`${fx.endpoint}/sse`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
      expect(res.status).to.equal(200);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      const nextEvent = async (): Promise<{ event: string; data: string }> => {
        for (;;) {
          const cut = buffer.indexOf('\n\n');
          if (cut >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (frame.startsWith(':')) continue;
            let event = 'message';
            const data: string[] = [];
            for (const line of frame.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            return { event, data: data.join('\n') };
          }
          const { value, done } = await reader.read();
          if (done) throw new Error('the stream ended');
          buffer += value;
        }
      };
      try {
        const endpoint = await nextEvent();
        expect(endpoint.event).to.equal('endpoint');
        assertSseEventMatchesContract('mcpBundleSseOpen', 'endpoint', endpoint.data);
        const posted = await fetch(new URL(endpoint.data, t.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
        expect(posted.status).to.equal(202);
        const message = await nextEvent();
        expect(message.event).to.equal('message');
        assertSseEventMatchesContract('mcpBundleSseOpen', 'message', JSON.parse(message.data));
      } finally {
        controller.abort();
      }
    });
  });
});
