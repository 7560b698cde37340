import { Ajv, type ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import type { ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';

/** The workflow definition of a skill (openapi.yaml `SkillWorkflow`). */
export type SkillWorkflow = components['schemas']['SkillWorkflow'];
export type SkillScriptToolDef = components['schemas']['SkillScriptTool'];
export type ScriptLanguage = SkillScriptToolDef['language'];

/** File names, at the skill's root, that hold the workflow definition. */
export const WORKFLOW_FILES = ['workflow.yaml', 'workflow.yml', 'workflow.json'] as const;
export const DEFAULT_SCRIPT_TIMEOUT_MS = 10_000;

const PATH_PATTERN = '^(?!/)(?!.*(^|/)\\.\\.(/|$))[A-Za-z0-9._/-]{1,1024}$';

/**
 * JSON Schema of a workflow definition: the contract's `SkillWorkflow` with `SkillScriptTool`
 * inlined (a unit test keeps the two equal).
 */
export const WORKFLOW_SCHEMA = {
  type: 'object',
  required: ['tools'],
  properties: {
    version: { type: 'integer', const: 1 },
    tools: {
      type: 'array',
      minItems: 1,
      maxItems: 32,
      items: {
        type: 'object',
        required: ['name', 'description', 'language', 'entry'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
          title: { type: 'string', maxLength: 255 },
          description: { type: 'string', minLength: 1, maxLength: 2048 },
          language: { type: 'string', enum: ['javascript', 'python', 'shell'] },
          entry: { type: 'string', maxLength: 1024, pattern: PATH_PATTERN },
          input_schema: { type: 'object' },
          annotations: { type: 'object' },
          timeout_ms: { type: 'integer', minimum: 100, maximum: 60000, default: DEFAULT_SCRIPT_TIMEOUT_MS },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
const validateWorkflow = ajv.compile(WORKFLOW_SCHEMA);
/** Compiles tools' input schemas to prove they are valid JSON Schema (the compiled form is not kept). */
const schemaChecker = new Ajv({ strict: false, allErrors: false, validateSchema: true });

function ajvIssue(e: ErrorObject, loc: (string | number)[]): ValidationIssue {
  const parts = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties') parts.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return {
    loc: [...loc, ...parts],
    msg: `workflow: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`,
    type: 'workflow_invalid',
    input: null,
    ctx: { keyword: e.keyword },
  };
}

/** The workflow file among a skill's files (its index), or undefined; more than one is an issue. */
export function findWorkflowFile(files: readonly { path: string }[]): { index: number; path: string }[] {
  const found: { index: number; path: string }[] = [];
  files.forEach((f, index) => {
    if ((WORKFLOW_FILES as readonly string[]).includes(f.path)) found.push({ index, path: f.path });
  });
  return found;
}

/**
 * Parses and checks the workflow definition among a skill's files: the document must match
 * `SkillWorkflow`, tool names must be unique, each entry must be one of the skill's files, each
 * input schema a valid object schema. Returns the workflow (defaults applied) or null when the
 * skill has none, and the issues found (`loc` starting at `filesLoc`).
 */
export function parseWorkflow(
  files: readonly { path: string; content: string }[],
  filesLoc: (string | number)[] = ['body', 'files'],
): { workflow: SkillWorkflow | null; issues: ValidationIssue[] } {
  const found = findWorkflowFile(files);
  if (!found.length) return { workflow: null, issues: [] };
  const at = found[0]!;
  const loc = [...filesLoc, at.index, 'content'];
  if (found.length > 1) {
    return {
      workflow: null,
      issues: [
        {
          loc: [...filesLoc, found[1]!.index, 'path'],
          msg: 'A skill has at most one workflow file',
          type: 'value_error',
          input: found[1]!.path,
          ctx: {},
        },
      ],
    };
  }
  const text = files[at.index]!.content;
  let data: unknown;
  if (at.path.endsWith('.json')) {
    try {
      data = JSON.parse(text);
    } catch (err) {
      const msg = err instanceof Error ? err.message : 'parse error';
      return {
        workflow: null,
        issues: [{ loc, msg: `workflow.json is not valid JSON: ${msg}`, type: 'json_invalid', input: null, ctx: {} }],
      };
    }
  } else {
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length) {
      const msg = doc.errors[0]!.message.split('\n')[0];
      return { workflow: null, issues: [{ loc, msg: `${at.path} is not valid YAML: ${msg}`, type: 'value_error', input: null, ctx: {} }] };
    }
    try {
      data = doc.toJS({ maxAliasCount: 50 });
    } catch (err) {
      const msg = err instanceof Error ? err.message : 'parse error';
      return { workflow: null, issues: [{ loc, msg: `${at.path} is not valid YAML: ${msg}`, type: 'value_error', input: null, ctx: {} }] };
    }
  }
  const workflow = structuredClone(data) as SkillWorkflow;
  if (!validateWorkflow(workflow)) return { workflow: null, issues: (validateWorkflow.errors ?? []).map((e) => ajvIssue(e, loc)) };

  const issues: ValidationIssue[] = [];
  const paths = new Set(files.map((f) => f.path));
  const names = new Set<string>();
  workflow.tools.forEach((tool, i) => {
    const tloc = [...loc, 'tools', i];
    const issue = (field: string, msg: string, input: unknown) =>
      issues.push({ loc: [...tloc, field], msg: `workflow: ${msg}`, type: 'value_error', input, ctx: {} });
    if (names.has(tool.name)) issue('name', `two tools are named "${tool.name}"`, tool.name);
    names.add(tool.name);
    if (!paths.has(tool.entry)) issue('entry', `entry ${tool.entry} is not one of the skill's files`, tool.entry);
    const schema = tool.input_schema ?? { type: 'object' };
    if (schema.type !== undefined && schema.type !== 'object') issue('input_schema', 'input_schema must have type "object"', schema.type);
    else {
      try {
        schemaChecker.compile(schema);
      } catch (err) {
        issue('input_schema', `input_schema is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`, null);
      }
    }
  });
  return issues.length ? { workflow: null, issues } : { workflow, issues: [] };
}
