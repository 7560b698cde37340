import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FaultProxy } from '../../../helpers/fault-proxy.js';
import { setupFixtureBundle, type FixtureBundle } from '../../../helpers/fixture-bundle.js';
import { ACCEPT_BOTH } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { waitFor } from '../../../helpers/upstreams.js';

/** Reads an SSE response body until `until` appears in it (or it ends); returns the text. */
async function readUntil(body: ReadableStream<Uint8Array>, until: (text: string) => boolean): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

describe('Resumable streams: priming events, Last-Event-ID resumes a dropped POST stream and the GET stream', function () {
  this.timeout(60_000);
  let t: TestServer;
  let fixture: FixtureBundle;
  let proxy: FaultProxy;
  let viaProxy: string;
  before(async () => {
    t = await startTestServer();
    fixture = await setupFixtureBundle(t.owner, t.url, { name: 'resume', tools: ['sleep', 'echo'] });
    const url = new URL(t.url);
    proxy = await new FaultProxy('127.0.0.1', Number(url.port)).start();
    viaProxy = fixture.endpoint.replace(`:${url.port}/`, `:${proxy.port}/`);
  });
  after(async () => {
    await proxy?.stop();
    await t?.stop();
  });

  async function initialize(): Promise<Record<string, string>> {
    const init = await fetch(fixture.endpoint, {
      method: 'POST',
      headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    return {
      accept: ACCEPT_BOTH,
      'content-type': 'application/json',
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-11-25',
    };
  }

  it('a POST stream opens with a priming event (id and retry:), numbers its events, and resumes after a drop', async () => {
    const headers = await initialize();
    const call = await fetch(fixture.endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'sleep', arguments: { ms: 600 }, _meta: { progressToken: 'p' } },
      }),
    });
    // Read the priming event and the first progress event, then drop the connection.
    const first = await readUntil(call.body!, (x) => x.includes('notifications/progress'));
    const priming = /^id: (p\d+\.0)\nretry: (\d+)\n/m.exec(first);
    expect(priming, first).to.not.equal(null);
    const ids = [...first.matchAll(/^id: (\S+)\nevent: message$/gm)].map((m) => m[1]!);
    expect(ids.length).to.be.greaterThan(0);
    const resumed = await fetch(fixture.endpoint, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': ids.at(-1)! },
    });
    expect(resumed.status).to.equal(200);
    const rest = await readUntil(resumed.body!, (x) => x.includes('"id":5'));
    expect(rest).to.contain('"id":5');
    expect(rest).to.contain('"result"');
    // Nothing before the resumption point is sent again.
    expect(rest).to.not.contain(`id: ${ids.at(-1)}\n`);
  });

  it('a Last-Event-ID of a stream the session cannot resume is 400', async () => {
    const headers = await initialize();
    const res = await fetch(fixture.endpoint, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': 'p99.1' },
    });
    expect(res.status).to.equal(400);
  });

  it('a GET stream opens with a priming event naming the latest event', async () => {
    const headers = await initialize();
    const res = await fetch(fixture.endpoint, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });
    const text = await readUntil(res.body!, (x) => x.includes('retry:'));
    expect(text).to.match(/^id: 0\nretry: \d+\ndata:\n/m);
  });

  it('the SDK client gets the response of a call whose connection a proxy cut mid-call', async () => {
    const client = new Client({ name: 'resume', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(viaProxy)));
    try {
      const progress: number[] = [];
      const result = client.callTool({ name: 'sleep', arguments: { ms: 1500 } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
        timeout: 30_000,
      });
      await waitFor('progress on the POST stream', () => progress.length > 0, 10_000);
      proxy.block();
      await new Promise((r) => setTimeout(r, 150));
      proxy.restore();
      const done = await result;
      expect((done.content as { text: string }[])[0]!.text).to.match(/slept|1500/i);
    } finally {
      await client.close();
    }
  });

  it('the SDK client gets a list_changed sent while its GET stream was cut', async () => {
    const client = new Client({ name: 'resume-get', version: '1' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    await client.connect(new StreamableHTTPClientTransport(new URL(viaProxy)));
    try {
      // Let the GET stream open, then cut everything and change the bundle while it is down.
      await new Promise((r) => setTimeout(r, 300));
      proxy.block();
      const tool = fixture.toolIds.echo!;
      await t.owner.put(`/api/v1/bundles/${fixture.bundleId}/tools/${tool}/override`, { name: 'echo_resumed' });
      await new Promise((r) => setTimeout(r, 100));
      proxy.restore();
      await waitFor('list_changed after the reconnect', () => changed > 0, 15_000);
    } finally {
      await client.close();
    }
  });
});
