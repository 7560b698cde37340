import { expect } from 'chai';
import { resultFromOutput } from '../../../../src/sandbox/sandbox-types.js';
import { ScriptToolRegistry, ScriptToolRouter } from '../../../../src/services/skills/script-tools.js';
import { isSkillName, parseSkillMd, renderSkillMd, SkillFormatError } from '../../../../src/services/skills/skill-md.js';
import { parseWorkflow, WORKFLOW_SCHEMA } from '../../../../src/services/skills/workflow.js';
import type { UpstreamCaller } from '../../../../src/domain/upstream-call.js';
import { SPEC } from '../../../helpers/contract.js';

describe('SKILL.md (skill-md.ts)', () => {
  it('splits frontmatter (parsed as YAML) from the body', () => {
    const parsed = parseSkillMd(
      '---\nname: pdf-report\ndescription: "Builds: reports"\nlicense: MIT\nallowed-tools: Read Bash\nmetadata:\n  author: me\n---\n# Body\n',
    );
    expect(parsed).to.deep.equal({
      name: 'pdf-report',
      description: 'Builds: reports',
      frontmatter: { license: 'MIT', 'allowed-tools': 'Read Bash', metadata: { author: 'me' } },
      body: '# Body\n',
    });
  });

  it('applies the Agent Skills name rule', () => {
    for (const ok of ['a', 'pdf-report', 'x1-2-3', 'a'.repeat(64)]) expect(isSkillName(ok), ok).to.equal(true);
    for (const bad of ['', '-a', 'a-', 'a--b', 'A', 'a_b', 'a.b', 'a'.repeat(65)]) expect(isSkillName(bad), bad).to.equal(false);
  });

  it('refuses a missing block, a bad name or description, non-map YAML, duplicate keys and typed keys of the wrong type', () => {
    const bad = [
      'no frontmatter',
      '---\nname: Bad\ndescription: d\n---\n',
      '---\nname: ok\n---\n',
      '---\n- a\n- b\n---\n',
      '---\nname: ok\nname: again\ndescription: d\n---\n',
      '---\nname: ok\ndescription: d\nlicense: [1]\n---\n',
      `---\nname: ok\ndescription: ${'d'.repeat(1025)}\n---\n`,
    ];
    for (const text of bad) expect(() => parseSkillMd(text), text.slice(0, 30)).to.throw(SkillFormatError);
  });

  it('does not expand alias bombs and never runs code', () => {
    const bomb = `---\nname: ok\ndescription: d\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n`;
    expect(() => parseSkillMd(bomb)).to.throw(SkillFormatError);
    expect(() => parseSkillMd('---js\n{ name: (() => { throw new Error("ran") })() }\n---\n')).to.throw(SkillFormatError, /frontmatter/);
  });

  it('renders a SKILL.md that parses back to the same parts', () => {
    const parts = {
      name: 'round-trip',
      description: 'Goes: and comes back',
      frontmatter: { license: 'MIT', metadata: { v: '1' } },
      body: '# Title\n\ntext\n',
    };
    const again = parseSkillMd(renderSkillMd(parts));
    expect(again).to.deep.equal({ ...parts, body: '\n# Title\n\ntext\n' });
  });
});

describe('Workflow definition (workflow.ts)', () => {
  it('WORKFLOW_SCHEMA is the contract SkillWorkflow with SkillScriptTool inlined', () => {
    const schemas = (SPEC as any).components.schemas;
    const strip = (o: any): any =>
      Array.isArray(o)
        ? o.map(strip)
        : o && typeof o === 'object'
          ? Object.fromEntries(
              Object.entries(o)
                .filter(([k]) => k !== 'description' && k !== 'examples')
                .map(([k, v]) => [k, strip(v)]),
            )
          : o;
    const contract = strip(structuredClone(schemas.SkillWorkflow));
    contract.properties.tools.items = strip(structuredClone(schemas.SkillScriptTool));
    expect(strip(WORKFLOW_SCHEMA)).to.deep.equal(contract);
  });

  it('parses workflow.yaml with defaults, and says where a problem is', () => {
    const files = [
      { path: 'a.js', content: '' },
      { path: 'workflow.yaml', content: 'tools:\n  - name: t1\n    description: d\n    language: javascript\n    entry: a.js\n' },
    ];
    const ok = parseWorkflow(files);
    expect(ok.issues).to.deep.equal([]);
    expect(ok.workflow?.tools[0]).to.deep.include({ name: 't1', timeout_ms: 10000 });
    const dup = parseWorkflow([
      files[0]!,
      {
        path: 'workflow.json',
        content: JSON.stringify({
          tools: [1, 2].map(() => ({ name: 't', description: 'd', language: 'shell', entry: 'a.js', input_schema: { type: 'string' } })),
        }),
      },
    ]);
    expect(dup.issues.map((i) => i.loc.slice(4).join('.'))).to.deep.equal(['tools.0.input_schema', 'tools.1.name', 'tools.1.input_schema']);
    expect(
      parseWorkflow([
        { path: 'workflow.yaml', content: 'x' },
        { path: 'workflow.json', content: '{}' },
      ]).issues[0]!.msg,
    ).to.match(/at most one/);
    expect(parseWorkflow([{ path: 'README.md', content: 'x' }])).to.deep.equal({ workflow: null, issues: [] });
  });
});

describe('Script tool results and routing', () => {
  it('turns output into a CallToolResult: JSON objects also become structured content', () => {
    expect(resultFromOutput('{"a":1}\n')).to.deep.equal({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    expect(resultFromOutput('[1,2]')).to.deep.equal({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(resultFromOutput('plain')).to.deep.equal({ content: [{ type: 'text', text: 'plain' }] });
    expect(resultFromOutput({ b: 2 })).to.deep.equal({ content: [{ type: 'text', text: '{"b":2}' }], structuredContent: { b: 2 } });
    expect(resultFromOutput(7)).to.deep.equal({ content: [{ type: 'text', text: '7' }] });
  });

  it('routes calls of registered script tools to the runner and everything else upstream', async () => {
    const seen: string[] = [];
    const upstream: UpstreamCaller = {
      callTool: async (s, n) => (seen.push(`up:${s}/${n}`), { content: [] }),
      readResource: async () => ({ contents: [] }),
      getPrompt: async () => ({ messages: [] }),
    };
    const registry = new ScriptToolRegistry();
    const runner = {
      supports: async () => true,
      run: async (job: { entry: string; timeoutMs: number }) => (
        seen.push(`run:${job.entry}:${job.timeoutMs}`),
        { content: [{ type: 'text' as const, text: 'ok' }] }
      ),
      close: async () => undefined,
    };
    registry.setServer('s1', [
      {
        toolId: 't',
        serverId: 's1',
        name: 'script',
        skillId: 'k',
        skillName: 'k',
        language: 'javascript',
        entry: 'a.js',
        timeoutMs: 5000,
        files: new Map(),
      },
    ]);
    const router = new ScriptToolRouter(registry, runner, upstream);
    await router.callTool('s1', 'script', {}, { timeoutMs: 1000 });
    await router.callTool('s1', 'other', {});
    await router.callTool('s2', 'script', {});
    expect(seen).to.deep.equal(['run:a.js:1000', 'up:s1/other', 'up:s2/script']);
    registry.setServer('s1', []);
    await router.callTool('s1', 'script', {});
    expect(seen.at(-1)).to.equal('up:s1/script');
  });
});
