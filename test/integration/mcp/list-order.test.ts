import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { fixtureStdio } from '../../helpers/upstreams.js';

describe("resources/list, resources/templates/list and prompts/list keep the upstream's order", function () {
  this.timeout(60_000);
  let t: TestServer;
  let fixture: FixtureBundle;
  let direct: Client;
  let viaGateway: Client;
  before(async () => {
    t = await startTestServer();
    fixture = await setupFixtureBundle(t.owner, t.url, { name: 'order' });
    const f = fixtureStdio();
    direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StdioClientTransport({ command: f.command, args: f.args, cwd: f.cwd }));
    viaGateway = new Client({ name: 'via', version: '1' });
    await viaGateway.connect(new StreamableHTTPClientTransport(new URL(fixture.endpoint)));
  });
  after(async () => {
    await direct?.close();
    await viaGateway?.close();
    await t?.stop();
  });

  it('resources in the order the upstream lists them (not sorted by URI)', async () => {
    const upstream = (await direct.listResources()).resources.map((r) => r.uri);
    expect(upstream).to.not.deep.equal([...upstream].sort(), 'the fixture lists its resources out of URI order');
    expect((await viaGateway.listResources()).resources.map((r) => r.uri)).to.deep.equal(upstream);
  });

  it('resource templates and prompts in the order the upstream lists them', async () => {
    const templates = (await direct.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    expect((await viaGateway.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).to.deep.equal(templates);
    const prompts = (await direct.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).to.not.deep.equal([...prompts].sort(), 'the fixture lists its prompts out of name order');
    expect((await viaGateway.listPrompts()).prompts.map((p) => p.name)).to.deep.equal(prompts);
  });
});
