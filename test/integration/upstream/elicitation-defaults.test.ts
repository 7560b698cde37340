import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';

/** The text of a tools/call result's first block. */
function textOf(result: unknown): string {
  return (result as { content: { text?: string }[] }).content[0]?.text ?? '';
}

/** The content the fixture's upstream tool received back, parsed from its answer text. */
function contentSeenUpstream(result: unknown): { action: string; content: Record<string, unknown> } {
  const match = /action=(\w+), content=(.*)$/.exec(textOf(result));
  if (!match) throw new Error(`unexpected answer: ${textOf(result)}`);
  return { action: match[1]!, content: JSON.parse(match[2]!) as Record<string, unknown> };
}

describe('Elicitation relayed upstream with the form defaults applied (SEP-1034)', () => {
  let t: TestServer;
  let fixture: FixtureBundle;
  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    fixture = await setupFixtureBundle(t.owner, t.url, {
      name: 'elicit-defaults',
      tools: ['test_elicitation_sep1034_defaults', 'test_elicitation'],
    });
  });
  after(() => t?.stop());

  async function callAnswering(tool: string, answer: ElicitResult): Promise<unknown> {
    const client = new Client({ name: 'defaults-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(new StreamableHTTPClientTransport(new URL(fixture.endpoint)));
    client.setRequestHandler(ElicitRequestSchema, async () => answer);
    try {
      return await client.callTool({ name: tool, arguments: tool === 'test_elicitation' ? { message: 'hi' } : {} });
    } finally {
      await client.close();
    }
  }

  it('fills every field an accepting caller left out with its schema default', async () => {
    const seen = contentSeenUpstream(await callAnswering('test_elicitation_sep1034_defaults', { action: 'accept', content: {} }));
    expect(seen).to.deep.equal({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
  });

  it('keeps what the caller answered and fills only the rest', async () => {
    const seen = contentSeenUpstream(
      await callAnswering('test_elicitation_sep1034_defaults', { action: 'accept', content: { name: 'Ada', verified: false } }),
    );
    expect(seen.content).to.deep.equal({ name: 'Ada', verified: false, age: 30, score: 95.5, status: 'active' });
  });

  it('adds nothing to a declined elicitation', async () => {
    const seen = contentSeenUpstream(await callAnswering('test_elicitation_sep1034_defaults', { action: 'decline' }));
    expect(seen).to.deep.equal({ action: 'decline', content: {} });
  });

  it('adds nothing to a form whose fields have no defaults', async () => {
    const seen = contentSeenUpstream(await callAnswering('test_elicitation', { action: 'accept', content: { username: 'ada' } }));
    expect(seen.content).to.deep.equal({ username: 'ada' });
  });
});
