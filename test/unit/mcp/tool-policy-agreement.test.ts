import { expect } from 'chai';
import fc from 'fast-check';
import type { PolicyRule, PolicySubject } from '../../../src/domain/tool-policy.js';
import { DeadlineWheel } from '../../../src/lib/deadline-wheel.js';
import type { LiveBundle } from '../../../src/live/bundles-registry.js';
import { InMemoryCatalog } from '../../../src/live/in-memory-catalog.js';
import { ToolPolicy } from '../../../src/live/tool-policy.js';
import { BundleViews } from '../../../src/mcp/bundle-view.js';
import type { McpContext, McpMethodDeps, McpView } from '../../../src/mcp/context.js';
import { GatewayView } from '../../../src/mcp/gateway-view.js';
import { toolsCall } from '../../../src/mcp/methods/tools.js';
import { toolDocumentId } from '../../../src/search/index.js';
import { putFixtureServer } from '../../helpers/test-upstreams.js';

/**
 * The property the tool policy promises: `tools/list`, the gateway's `search` and a call
 * (`tools/call`, or `execute`) never disagree. For any rules, caller and arguments: a tool is
 * listed exactly when search can return it; a call of a tool that is not listed is denied; a
 * call that is allowed is of a listed tool; and the call's outcome is the policy's decision.
 * Checked on the gateway (direct and search/execute) and on the bundle route.
 */
describe('tool policy: list, search and call agree', function () {
  this.timeout(120_000);
  const NAMES = ['read_file', 'write_file', 'write_log', 'delete_all', 'echo'];
  const catalog = new InMemoryCatalog();
  const s1 = putFixtureServer(
    catalog,
    'alpha',
    NAMES.map((name) => ({ name })),
  );
  const s2 = putFixtureServer(
    catalog,
    'beta',
    NAMES.slice(0, 3).map((name) => ({ name })),
  );
  const bundle = (id: string, name: string, tools: { id: string; serverId: string; name: string }[]): LiveBundle => ({
    id,
    name,
    description: null,
    keyHash: id,
    createdBy: null,
    shares: [],
    version: 1,
    tools: tools.map((t, i) => ({ toolId: t.id, serverId: t.serverId, serverName: 'x', toolName: t.name, displayOrder: i, override: {} })),
  });
  const b1 = bundle('00000000-0000-0000-0000-0000000000b1', 'One', Object.values(s1.tools));
  const b2 = bundle('00000000-0000-0000-0000-0000000000b2', 'Two', [...Object.values(s2.tools), s1.tools.echo!]);
  const SERVERS = [s1.serverId, s2.serverId];
  const BUNDLES = [b1.id, b2.id];
  const CONDITIONS = [
    'args.n > 5',
    'has(args.path) && args.path.startsWith("/etc")',
    'args.flag == true',
    'tool == "echo"',
    'user_id == "u1"',
  ];

  const ruleArb = fc.record({
    effect: fc.constantFrom<'allow' | 'deny'>('allow', 'deny'),
    priority: fc.integer({ min: 0, max: 20 }),
    servers: fc.subarray(SERVERS),
    tools: fc.subarray([...NAMES, 'write_*', '*_file', '?cho', '*']),
    bundles: fc.subarray(BUNDLES),
    teams: fc.subarray(['t1', 't2']),
    users: fc.subarray(['u1', 'u2']),
    condition: fc.option(fc.constantFrom(...CONDITIONS), { nil: null }),
    enabled: fc.boolean(),
  });
  const subjectArb = fc.record({ userId: fc.constantFrom('u1', 'u2', 'u3'), teams: fc.subarray(['t1', 't2']) });
  const argsArb = fc.record(
    { n: fc.integer({ min: 0, max: 10 }), path: fc.constantFrom('/etc/passwd', '/tmp/x'), flag: fc.boolean() },
    { requiredKeys: [] },
  );

  const upstreamCalls: string[] = [];
  const deps = {
    upstreams: {
      callTool: async (_server: string, tool: string) => {
        upstreamCalls.push(tool);
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    },
    recorder: { record: () => undefined },
    callTimeoutMs: 10_000,
    deadlines: new DeadlineWheel(),
    serverInfo: { name: 't', version: '1' },
  } as unknown as McpMethodDeps;
  const ctxOf = (view: McpView): McpContext =>
    ({
      view,
      caller: { endpoint: 'gateway', userId: null, apiKeyId: null },
      era: 'stateful',
      protocolVersion: '2025-06-18',
      session: null,
      requestId: 1,
      progressToken: undefined,
      signal: { aborted: false, addEventListener: () => undefined, removeEventListener: () => undefined },
      notify: () => undefined,
      openStream: () => undefined,
      streamIfSlow: () => undefined,
      internalError: false,
      clientCapabilities: undefined,
      taskOwner: 'x',
    }) as unknown as McpContext;

  /** A call's outcome: allowed (the upstream answered), denied (-32004), unknown (-32602). */
  async function outcome(view: McpView, name: string, args: Record<string, unknown>): Promise<'allowed' | 'denied' | 'unknown'> {
    try {
      await toolsCall({ name, arguments: args }, ctxOf(view), deps);
      return 'allowed';
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === -32004) return 'denied';
      if (code === -32602) return 'unknown';
      throw err;
    }
  }
  const listedNames = (view: McpView): string[] =>
    (JSON.parse(view.toolsListPage(undefined, 'stateful').json) as { tools: { name: string }[] }).tools.map((t) => t.name);

  /** A search that returns every tool of every bundle, ignoring `allowed`: the view must still return only what it lists. */
  const everything = [b1, b2].flatMap((b) => b.tools.map((t) => ({ id: toolDocumentId(b.id, t.toolId), score: 1 })));
  const search = { search: async () => ({ hits: everything, mode: 'keyword' as const }) };

  it('on the gateway (direct, search and execute) and on the bundle route', async () => {
    // What the runs covered: a property that never met a denial would prove nothing.
    const seen = { denied: 0, allowed: 0, guarded: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(ruleArb, { maxLength: 8 }), subjectArb, argsArb, async (drafts, who, args) => {
        const policy = new ToolPolicy();
        const rules: PolicyRule[] = drafts.map((d, i) => ({ ...d, id: `r${i}`, name: `rule ${i}` }));
        policy.load(rules);
        const subject: PolicySubject = { userId: who.userId, teamIds: new Set(who.teams) };
        const views = new BundleViews(catalog, 1000, { name: 't', version: '1' }, policy);
        const input = {
          searchLimit: 1000,
          bundles: [views.of(b1), views.of(b2)],
          catalog,
          search,
          pageSize: 1000,
          serverInfo: { name: 't', version: '1' },
          gate: policy.gateFor(subject),
        };
        const direct = new GatewayView({ ...input, mode: 'direct' });
        const searching = new GatewayView({ ...input, mode: 'search_execute' });
        const listed = new Set(listedNames(direct));
        const found = (await searching.builtins!.get('search')!.call({ query: 'anything' }, ctxOf(searching), deps)).structuredContent as {
          tools: { name: string }[];
        };
        expect(new Set(found.tools.map((t) => t.name)), 'search = list').to.deep.equal(listed);
        const every = new Set([...direct.byName.keys(), ...direct.denied.keys(), ...direct.unavailable.keys()]);
        for (const name of every) {
          const viaCall = await outcome(direct, name, args);
          if (viaCall === 'denied') seen.denied += 1;
          if (viaCall === 'allowed') seen.allowed += 1;
          if (direct.byName.get(name)?.guard) seen.guarded += 1;
          if (!listed.has(name)) expect(viaCall, `${name} not listed`).to.not.equal('allowed');
          if (viaCall === 'allowed') expect(listed.has(name)).to.equal(true);
          const tool = direct.byName.get(name) ?? direct.denied.get(name)!;
          const decision = policy.decide(subject, { serverId: tool.serverId, toolName: tool.upstreamName, bundleId: tool.bundleId }, args);
          expect(viaCall, `${name}: call = decision`).to.equal(decision.allowed ? 'allowed' : 'denied');
          let viaExecute: string;
          try {
            const r = await searching.builtins!.get('execute')!.call({ name, arguments: args }, ctxOf(searching), deps);
            viaExecute = r.isError ? 'unknown' : 'allowed';
          } catch (err) {
            viaExecute = (err as { code?: number }).code === -32004 ? 'denied' : 'error';
          }
          expect(viaExecute, `${name}: execute = call`).to.equal(viaCall);
        }
        // The bundle route: callers without an identity.
        for (const b of [b1, b2]) {
          const served = views.served(b);
          const names = new Set(listedNames(served));
          for (const t of b.tools) {
            const name = catalog.tool(t.toolId)!.name;
            const viaCall = await outcome(served, name, args);
            const decision = policy.decide(null, { serverId: t.serverId, toolName: name, bundleId: b.id }, args);
            expect(viaCall, `bundle ${b.name}: ${name}`).to.equal(decision.allowed ? 'allowed' : 'denied');
            if (!names.has(name)) expect(viaCall).to.equal('denied');
          }
        }
      }),
      { numRuns: 300 },
    );
    expect(seen.denied).to.be.greaterThan(0);
    expect(seen.allowed).to.be.greaterThan(0);
    expect(seen.guarded).to.be.greaterThan(0);
  });

  it('serves the unpoliced view itself when there are no rules (the fast path)', () => {
    const policy = new ToolPolicy();
    policy.load([]);
    const views = new BundleViews(catalog, 1000, { name: 't', version: '1' }, policy);
    expect(views.served(b1)).to.equal(views.of(b1));
    expect(policy.gateFor({ userId: 'u1', teamIds: new Set() })).to.equal(undefined);
  });
});
