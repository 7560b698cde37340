import fs from 'node:fs';
import path from 'node:path';
import { parseSkillMd } from '../../src/services/skills/skill-md.js';
import type { ApiClient } from './api-client.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** The example skill shipped in the repository (examples/skills/<name>) as a SkillCreate body. */
export function exampleSkill(name = 'text-stats'): Record<string, unknown> {
  const dir = path.join(ROOT, 'examples/skills', name);
  const parsed = parseSkillMd(fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8'));
  const files: { path: string; content: string }[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(p);
      else if (p !== 'SKILL.md') files.push({ path: p, content: fs.readFileSync(path.join(dir, p), 'utf8') });
    }
  };
  walk('');
  return { name: parsed.name, description: parsed.description, content: parsed.body, frontmatter: parsed.frontmatter, files };
}

/** A skill whose workflow has one tool per entry of `tools` (`name` → [language, path, code]). */
export function scriptSkill(name: string, tools: Record<string, [language: string, entry: string, code: string]>, timeoutMs = 3000) {
  const workflow = {
    version: 1,
    tools: Object.entries(tools).map(([tool, [language, entry]]) => ({
      name: tool,
      description: `The ${tool} tool`,
      language,
      entry,
      timeout_ms: timeoutMs,
      input_schema: { type: 'object' },
    })),
  };
  const files = [{ path: 'workflow.json', content: JSON.stringify(workflow) }];
  for (const [, entry, code] of Object.values(tools)) if (!files.some((f) => f.path === entry)) files.push({ path: entry, content: code });
  return { name, description: `Script skill ${name}`, content: `# ${name}\n`, files };
}

/** Creates a skill (asserting 201) and returns its body. */
export async function createSkill(api: ApiClient, body: Record<string, unknown>): Promise<any> {
  const res = await api.post('/api/v1/skills', body);
  if (res.status !== 201) throw new Error(`create skill: ${res.status} ${res.text}`);
  return res.body;
}
