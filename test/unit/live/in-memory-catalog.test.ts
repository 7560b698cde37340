import { expect } from 'chai';
import type { CatalogTool } from '../../../src/domain/catalog.js';
import { InMemoryCatalog } from '../../../src/live/in-memory-catalog.js';

function tool(id: string, serverId: string, name: string): CatalogTool {
  return {
    id,
    serverId,
    serverName: 's',
    name,
    title: null,
    description: null,
    inputSchema: { type: 'object' },
    outputSchema: null,
    annotations: null,
    meta: null,
    enabled: true,
    available: true,
  };
}

describe('InMemoryCatalog', () => {
  const entry = (tools: CatalogTool[]) => ({
    name: 's',
    enabled: true,
    connected: true,
    tools,
    resources: [],
    resourceTemplates: [],
    prompts: [],
  });

  it('indexes tools by id and by server, and bumps the version on every change', () => {
    const c = new InMemoryCatalog();
    const seen: string[][] = [];
    c.onChange((ids) => seen.push([...ids]));
    c.putServer('a', entry([tool('t1', 'a', 'echo'), tool('t2', 'a', 'add')]));
    expect(c.tool('t1')?.name).to.equal('echo');
    expect(c.toolsOfServer('a')).to.have.length(2);
    expect(c.version).to.equal(1);
    c.putServer('a', entry([tool('t2', 'a', 'add')]));
    expect(c.tool('t1')).to.equal(undefined);
    expect(seen).to.deep.equal([['a'], ['a']]);
  });

  it('changes tool selection and reports only the tools that changed', () => {
    const c = new InMemoryCatalog();
    c.putServer('a', entry([tool('t1', 'a', 'echo'), tool('t2', 'a', 'add')]));
    expect(c.setToolsEnabled(['t1', 't2', 'unknown'], false)).to.deep.equal(['t1', 't2']);
    expect(c.setToolsEnabled(['t1'], false)).to.deep.equal([]);
    expect(c.toolsOfServer('a').every((t) => !t.enabled)).to.equal(true);
    expect(c.tool('t1')?.enabled).to.equal(false);
  });

  it('forgets a removed server and its tools', () => {
    const c = new InMemoryCatalog();
    c.putServer('a', entry([tool('t1', 'a', 'echo')]));
    c.patchServer('a', { connected: false });
    expect(c.serverState('a')).to.deep.equal({ name: 's', enabled: true, connected: false });
    c.removeServer('a');
    expect(c.serverState('a')).to.equal(undefined);
    expect(c.tool('t1')).to.equal(undefined);
  });
});
