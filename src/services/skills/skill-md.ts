import { parseDocument, stringify } from 'yaml';
import type { ValidationIssue } from '../../errors.js';

/**
 * SKILL.md, the Agent Skills format (agentskills.io/specification): a YAML frontmatter block
 * between `---` lines, then the Markdown instructions. The YAML is parsed by the `yaml` library
 * (core schema, unique keys, alias expansion capped) — never by a parser that runs code.
 */

/** Skill names: 1–64 lowercase letters, digits and single hyphens, no hyphen first or last. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
export const SKILL_COMPATIBILITY_MAX = 500;

/** A SKILL.md split into its parts. */
export interface ParsedSkillMd {
  name: string;
  description: string;
  /** Every frontmatter key besides `name` and `description`. */
  frontmatter: Record<string, unknown>;
  /** The Markdown after the frontmatter block. */
  body: string;
}

/** A SKILL.md that does not follow the format; `problems` says why, in words safe to show. */
export class SkillFormatError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`not a valid SKILL.md: ${problems.join('; ')}`);
    this.name = 'SkillFormatError';
  }
}

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/** True when `text` starts with a frontmatter block. */
export function hasFrontmatter(text: string): boolean {
  return FRONTMATTER.test(text);
}

/** Whether `name` follows the Agent Skills name rule. */
export function isSkillName(name: string): boolean {
  return name.length <= SKILL_NAME_MAX && SKILL_NAME_PATTERN.test(name);
}

/**
 * Parses a SKILL.md: the frontmatter must be a YAML map with a valid `name` and a `description`;
 * the other keys are checked by `frontmatterProblems`. Throws SkillFormatError.
 */
export function parseSkillMd(text: string): ParsedSkillMd {
  const m = FRONTMATTER.exec(text);
  if (!m) throw new SkillFormatError(['SKILL.md must start with a YAML frontmatter block between --- lines']);
  const doc = parseDocument(m[1] ?? '', { uniqueKeys: true, prettyErrors: false, strict: true });
  if (doc.errors.length) throw new SkillFormatError([`frontmatter is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`]);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    throw new SkillFormatError([`frontmatter is not valid YAML: ${err instanceof Error ? err.message : String(err)}`]);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new SkillFormatError(['frontmatter must be a YAML map']);
  const { name, description, ...rest } = data as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof name !== 'string' || !isSkillName(name))
    problems.push('name must be 1-64 lowercase letters, digits and single hyphens, not starting or ending with a hyphen');
  if (typeof description !== 'string' || !description.trim() || description.length > SKILL_DESCRIPTION_MAX)
    problems.push(`description must be a non-empty string of at most ${SKILL_DESCRIPTION_MAX} characters`);
  problems.push(...frontmatterProblems(rest).map((i) => i.msg));
  if (problems.length) throw new SkillFormatError(problems);
  return { name: name as string, description: (description as string).trim(), frontmatter: rest, body: text.slice(m[0].length) };
}

/**
 * Checks the frontmatter keys the Agent Skills format defines (besides name and description):
 * `license` and `compatibility` are strings, `metadata` is a map, `allowed-tools` a string or a
 * list of strings. Other keys are kept as they are. `loc` prefixes each issue's location.
 */
export function frontmatterProblems(frontmatter: Record<string, unknown>, loc: (string | number)[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const bad = (key: string, msg: string) => issues.push({ loc: [...loc, key], msg, type: 'value_error', input: frontmatter[key], ctx: {} });
  for (const key of ['name', 'description']) if (key in frontmatter) bad(key, `${key} is a field of the skill itself, not of frontmatter`);
  if ('license' in frontmatter && typeof frontmatter.license !== 'string') bad('license', 'license must be a string');
  if ('compatibility' in frontmatter) {
    const c = frontmatter.compatibility;
    if (typeof c !== 'string' || c.length > SKILL_COMPATIBILITY_MAX)
      bad('compatibility', `compatibility must be a string of at most ${SKILL_COMPATIBILITY_MAX} characters`);
  }
  if ('metadata' in frontmatter) {
    const md = frontmatter.metadata;
    if (!md || typeof md !== 'object' || Array.isArray(md)) bad('metadata', 'metadata must be a map');
  }
  if ('allowed-tools' in frontmatter) {
    const t = frontmatter['allowed-tools'];
    if (typeof t !== 'string' && !(Array.isArray(t) && t.every((x) => typeof x === 'string')))
      bad('allowed-tools', 'allowed-tools must be a string or a list of strings');
  }
  return issues;
}

/** Writes a SKILL.md from its parts: frontmatter (name, description, then the other keys) and body. */
export function renderSkillMd(skill: { name: string; description: string; frontmatter: Record<string, unknown>; body: string }): string {
  const yaml = stringify({ name: skill.name, description: skill.description, ...skill.frontmatter }, { lineWidth: 0 });
  const body = skill.body.startsWith('\n') || skill.body === '' ? skill.body : `\n${skill.body}`;
  return `---\n${yaml}---\n${body}`;
}
