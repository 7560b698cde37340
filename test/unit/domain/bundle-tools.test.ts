import { expect } from 'chai';
import {
  ConcealedArgumentError,
  effectiveTool,
  overrideSchemaIssues,
  publishedInputSchema,
  upstreamArguments,
} from '../../../src/domain/bundle-tools.js';
import type { CatalogTool } from '../../../src/domain/catalog.js';

const tool: CatalogTool = {
  id: '00000000-0000-4000-8000-000000000001',
  serverId: '00000000-0000-4000-8000-000000000002',
  serverName: 'gh',
  name: 'create_issue',
  title: 'Create issue',
  description: 'Creates an issue',
  inputSchema: {
    type: 'object',
    properties: { title: { type: 'string' }, repo: { type: 'string' }, label: { type: 'string' }, token: { type: 'string' } },
    required: ['title', 'repo', 'label'],
  },
  outputSchema: null,
  annotations: { readOnlyHint: false },
  meta: null,
  enabled: true,
  available: true,
};

describe('bundle tool overrides', () => {
  it('keeps the upstream definition when the override is empty', () => {
    expect(effectiveTool(tool, {})).to.deep.include({ name: 'create_issue', title: 'Create issue', description: 'Creates an issue' });
    expect(publishedInputSchema(tool.inputSchema, {})).to.equal(tool.inputSchema);
  });

  it('removes pinned and hidden arguments from properties and required; defaulted ones become optional', () => {
    const published = publishedInputSchema(tool.inputSchema, {
      pinned: { repo: 'a/b' },
      hidden_arguments: ['token'],
      defaults: { label: 'bug' },
    });
    expect(Object.keys(published.properties as object)).to.deep.equal(['title', 'label']);
    expect(published.required).to.deep.equal(['title']);
    expect((published.properties as Record<string, { default?: unknown }>).label!.default).to.equal('bug');
    expect(tool.inputSchema.required).to.deep.equal(['title', 'repo', 'label']); // the catalog copy is untouched
  });

  it('merges defaults under the caller and pinned values over everything', () => {
    expect(upstreamArguments({ defaults: { label: 'bug', title: 'd' }, pinned: { repo: 'a/b' } }, { title: 't' })).to.deep.equal({
      label: 'bug',
      title: 't',
      repo: 'a/b',
    });
  });

  it('refuses a caller value for a pinned or hidden argument', () => {
    expect(() => upstreamArguments({ pinned: { repo: 'a/b' } }, { repo: 'x/y' })).to.throw(ConcealedArgumentError, /"repo" is pinned/);
    expect(() => upstreamArguments({ hidden_arguments: ['token'] }, { token: 's' })).to.throw(ConcealedArgumentError, /"token" is hidden/);
    const kind = (override: Parameters<typeof upstreamArguments>[0], args: Record<string, unknown>) => {
      try {
        upstreamArguments(override, args);
      } catch (err) {
        return (err as ConcealedArgumentError).kind;
      }
      return undefined;
    };
    // Pinned wins over hidden; a hidden name that is an Object.prototype key is not "pinned".
    expect(kind({ pinned: { repo: 'a/b' }, hidden_arguments: ['repo'] }, { repo: 'x' })).to.equal('pinned');
    expect(kind({ pinned: {}, hidden_arguments: ['constructor'] }, { constructor: 'x' })).to.equal('hidden');
  });

  it('reports pinned/defaults keys that are not arguments, and hidden required arguments', () => {
    const issues = overrideSchemaIssues(
      tool,
      { pinned: { nope: 1 }, defaults: { also_nope: 1 }, hidden_arguments: ['title', 'label', 'ghost'] },
      ['body'],
    );
    expect(issues.map((i) => i.loc.join('.'))).to.deep.equal([
      'body.pinned.nope',
      'body.defaults.also_nope',
      'body.hidden_arguments.0',
      'body.hidden_arguments.1',
      'body.hidden_arguments.2',
    ]);
    expect(overrideSchemaIssues(tool, { hidden_arguments: ['label'], defaults: { label: 'x' } }, ['body'])).to.deep.equal([]);
  });
});
