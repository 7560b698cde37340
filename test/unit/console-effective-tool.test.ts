import { expect } from 'chai';
import { effectiveTool } from '../../src/domain/bundle-tools.js';
import type { CatalogTool } from '../../src/domain/catalog.js';
import { effectiveWireTool, type OverrideShape } from '../../web/src/lib/effective-tool.js';

/**
 * The console's live preview of a bundle tool must show what `tools/list` will really publish:
 * the browser's copy of the rules must agree with the server's (src/domain/bundle-tools.ts).
 */
const upstream: CatalogTool = {
  id: '5b0c2f4e-8d1a-4c39-9f1e-2a3b4c5d6e7f',
  serverId: '0e1d2c3b-4a59-4687-9a8b-7c6d5e4f3a2b',
  serverName: 'github',
  name: 'create_issue',
  title: 'Create issue',
  description: 'Opens an issue in a repository.',
  inputSchema: {
    type: 'object',
    properties: {
      repo: { type: 'string', description: 'owner/name' },
      title: { type: 'string' },
      body: { type: 'string' },
      labels: { type: 'array', items: { type: 'string' } },
      draft: { type: 'boolean' },
    },
    required: ['repo', 'title'],
  },
  outputSchema: null,
  annotations: { readOnlyHint: false, openWorldHint: true },
  meta: null,
  enabled: true,
  available: true,
};

const cases: { name: string; override: OverrideShape }[] = [
  { name: 'no override', override: {} },
  { name: 'renamed with a new description', override: { name: 'open_ticket', description: 'Open a ticket in our tracker.', title: null } },
  { name: 'pinned required argument', override: { pinned: { repo: 'acme/widgets' } } },
  { name: 'defaults make an argument optional', override: { defaults: { title: 'Untitled', draft: true } } },
  { name: 'hidden optional arguments', override: { hidden_arguments: ['labels', 'draft'] } },
  {
    name: 'everything at once',
    override: { pinned: { repo: 'a/b' }, defaults: { title: 'T' }, hidden_arguments: ['draft'], annotations: { readOnlyHint: true } },
  },
  { name: 'defaults and pins of the same argument', override: { pinned: { title: 'x' }, defaults: { title: 'y', body: '' } } },
];

describe('console live preview of a bundle tool (web/src/lib/effective-tool.ts)', () => {
  for (const c of cases) {
    it(`publishes what the bundle endpoint publishes: ${c.name}`, () => {
      const server = effectiveTool(upstream, c.override as never);
      const expected: Record<string, unknown> = {
        name: server.name,
        title: server.title,
        description: server.description,
        inputSchema: server.inputSchema,
        outputSchema: server.outputSchema,
        annotations: server.annotations,
      };
      for (const k of Object.keys(expected)) if (expected[k] === null || expected[k] === undefined) delete expected[k];
      const preview = effectiveWireTool(
        {
          name: upstream.name,
          title: upstream.title,
          description: upstream.description,
          input_schema: upstream.inputSchema,
          output_schema: upstream.outputSchema,
          annotations: upstream.annotations as Record<string, unknown> | null,
        },
        c.override,
      );
      expect(preview).to.deep.equal(expected);
    });
  }

  it('removes a pinned argument from properties and required', () => {
    const preview = effectiveWireTool(
      { name: 'x', title: null, description: null, input_schema: upstream.inputSchema, output_schema: null, annotations: null },
      { pinned: { repo: 'a/b' } },
    );
    const schema = preview.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties).to.not.have.property('repo');
    expect(schema.required).to.deep.equal(['title']);
    expect(preview).to.not.have.property('title');
  });
});
