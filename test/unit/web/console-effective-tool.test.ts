import { expect } from 'chai';
import fc from 'fast-check';
import { effectiveTool } from '../../../src/domain/bundle-tools.js';
import type { CatalogTool } from '../../../src/domain/catalog.js';
import { effectiveWireTool, type OverrideShape } from '../../../web/src/lib/effective-tool.js';

/**
 * The console's live preview of a bundle tool must show what `tools/list` will really publish:
 * the browser's copy of the rules (web/src/lib/effective-tool.ts, which may import nothing of src/
 * but the generated contract types) must agree with the server's (src/domain/bundle-tools.ts).
 * The examples below show the cases a reader thinks of; the property test runs both on random
 * tools and overrides, so a rule changed on one side only fails here.
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

/** What the server publishes in `tools/list` for `tool` under `override` (absent members left out). */
function served(tool: CatalogTool, override: OverrideShape): Record<string, unknown> {
  const server = effectiveTool(tool, override);
  const wire: Record<string, unknown> = {
    name: server.name,
    title: server.title,
    description: server.description,
    inputSchema: server.inputSchema,
    outputSchema: server.outputSchema,
    annotations: server.annotations,
  };
  for (const k of Object.keys(wire)) if (wire[k] === null || wire[k] === undefined) delete wire[k];
  return wire;
}

/** What the console previews for `tool` under `override`. */
function previewed(tool: CatalogTool, override: OverrideShape): Record<string, unknown> {
  return effectiveWireTool(
    {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      input_schema: tool.inputSchema,
      output_schema: tool.outputSchema,
      annotations: tool.annotations as Record<string, unknown> | null,
    },
    override,
  );
}

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

/** Argument names the random schemas and overrides draw from, so that they overlap often. */
const ARGUMENTS = ['repo', 'title', 'body', 'labels', 'draft', 'default', 'required'];
const argument = fc.constantFrom(...ARGUMENTS);
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const text = fc.option(fc.string({ maxLength: 12 }), { nil: null });
/** A property's schema: usually an object, sometimes the boolean or null forms a sloppy upstream sends. */
const propertySchema = fc.oneof(
  fc.record({ type: fc.constantFrom('string', 'integer', 'boolean'), default: scalar }, { requiredKeys: ['type'] }),
  fc.constant({}),
  fc.constant(true),
  fc.constant(null),
);
const inputSchema = fc.record(
  {
    type: fc.constant('object'),
    properties: fc.dictionary(argument, propertySchema, { maxKeys: 6 }),
    required: fc.subarray(ARGUMENTS),
    additionalProperties: fc.boolean(),
  },
  { requiredKeys: ['type'] },
);
const annotations = fc.record(
  { title: fc.string({ maxLength: 8 }), readOnlyHint: fc.boolean(), destructiveHint: fc.boolean(), openWorldHint: fc.boolean() },
  { requiredKeys: [] },
);
const tool = fc.record({
  name: fc.string({ minLength: 1, maxLength: 12 }),
  title: text,
  description: text,
  inputSchema,
  outputSchema: fc.option(fc.constant({ type: 'object', properties: { ok: { type: 'boolean' } } }), { nil: null }),
  annotations: fc.option(annotations, { nil: null }),
});
const override: fc.Arbitrary<OverrideShape> = fc.record(
  {
    name: text,
    title: text,
    description: text,
    annotations: fc.option(annotations, { nil: null }),
    defaults: fc.option(fc.dictionary(argument, scalar, { maxKeys: 4 }), { nil: null }),
    pinned: fc.option(fc.dictionary(argument, scalar, { maxKeys: 4 }), { nil: null }),
    hidden_arguments: fc.option(fc.subarray(ARGUMENTS), { nil: null }),
    enabled: fc.boolean(),
  },
  { requiredKeys: [] },
);

describe('console live preview of a bundle tool (web/src/lib/effective-tool.ts)', () => {
  for (const c of cases) {
    it(`publishes what the bundle endpoint publishes: ${c.name}`, () => {
      expect(previewed(upstream, c.override)).to.deep.equal(served(upstream, c.override));
    });
  }

  it('publishes what the bundle endpoint publishes, for any tool and override', () => {
    fc.assert(
      fc.property(tool, override, (t, o) => {
        const catalogTool: CatalogTool = { ...upstream, ...t };
        expect(previewed(catalogTool, o)).to.deep.equal(served(catalogTool, o));
      }),
      { numRuns: 500 },
    );
  });

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
