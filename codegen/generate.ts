/**
 * Generates the committed files that are derived from a source of truth:
 *   - src/generated/openapi.ts: TypeScript types of paths, components and operations
 *     (openapi-typescript), from openapi.yaml;
 *   - src/generated/operation-index.ts: every operation's id, method, path, tag, minimum role and
 *     transport, from openapi.yaml;
 *   - src/generated/schemas.ts: the JSON Schemas of the components the server validates itself at
 *     run time (documents it fetches, not requests: openapi-backend validates those), from openapi.yaml;
 *   - docs/configuration.md: the environment variables, from SETTINGS in src/config.ts
 *     (codegen/config-docs.ts).
 *
 * `npm run codegen` writes them; `npm run codegen:check` exits 1 when they differ from what their
 * sources would generate (drift), without writing.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse } from 'yaml';
import { CONFIG_DOCS_PATH, renderConfigDocs } from './config-docs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SPEC = path.join(ROOT, 'openapi.yaml');
const OUT_DIR = 'src/generated';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const ROLES = ['public', 'bundle_key', 'member', 'admin', 'owner'];
/**
 * Components whose JSON Schema the server needs as a value: `CatalogIndex`, the catalog index
 * documents skill catalogs serve (src/services/skills/skill-catalogs.ts validates each one it
 * fetches), and `ConfigDocument`, the configuration documents `importConfig` and the CLI apply
 * (src/services/operations/config-document-service.ts). Their component `$ref`s are inlined.
 */
const RUNTIME_SCHEMAS = ['CatalogIndex', 'ConfigDocument'] as const;
/** Keys that only document a schema; left out of the runtime copies. */
const DOC_KEYS = new Set(['description', 'example', 'examples', 'title']);

interface RawOperation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  'x-min-role'?: string;
  'x-transport'?: string;
  'x-spec-addition'?: boolean;
}

function banner(specHash: string): string {
  return [
    '// DO NOT EDIT. Generated from openapi.yaml by codegen/generate.ts.',
    '// Regenerate with `npm run codegen`; CI runs `npm run codegen:check` to catch drift.',
    `// openapi.yaml sha256: ${specHash}`,
    '',
  ].join('\n');
}

/** Builds the operation index from the parsed document; fails on a missing id or role. */
function operationIndex(doc: { paths: Record<string, Record<string, RawOperation>> }): string {
  const rows: string[] = [];
  const problems: string[] = [];
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const id = op.operationId;
      const role = op['x-min-role'];
      if (!id) problems.push(`${method.toUpperCase()} ${route}: no operationId`);
      if (!role || !ROLES.includes(role)) problems.push(`${method.toUpperCase()} ${route}: x-min-role must be one of ${ROLES.join(', ')}`);
      const row = {
        operationId: id,
        method,
        path: route,
        tag: op.tags?.[0] ?? 'default',
        minRole: role,
        transport: op['x-transport'] === 'mcp' ? 'mcp' : 'rest',
        specAddition: op['x-spec-addition'] === true,
      };
      rows.push(`  ${JSON.stringify(row)},`);
    }
  }
  if (problems.length) throw new Error(`openapi.yaml:\n  ${problems.join('\n  ')}`);
  return [
    "import type { operations } from './openapi.js';",
    '',
    '/** Minimum credential an operation needs (`x-min-role`). */',
    "export type MinRole = 'public' | 'bundle_key' | 'member' | 'admin' | 'owner';",
    '',
    '/** One row per operation of the contract. */',
    'export interface OperationInfo {',
    '  readonly operationId: keyof operations;',
    "  readonly method: 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';",
    '  readonly path: string;',
    '  readonly tag: string;',
    '  readonly minRole: MinRole;',
    '  /** `mcp` operations are served by the JSON-RPC router in src/mcp, the rest by openapi-backend. */',
    "  readonly transport: 'rest' | 'mcp';",
    '  /** True for operations the platform adds to the interface specification. */',
    '  readonly specAddition: boolean;',
    '}',
    '',
    'export const OPERATIONS = [',
    ...rows,
    '] as const satisfies readonly OperationInfo[];',
    '',
    'type Row = (typeof OPERATIONS)[number];',
    '/** Operations dispatched by openapi-backend; each needs a handler. */',
    "export type RestOperationId = Extract<Row, { transport: 'rest' }>['operationId'];",
    '/** Operations served by the MCP JSON-RPC router. */',
    "export type McpOperationId = Extract<Row, { transport: 'mcp' }>['operationId'];",
    '',
  ].join('\n');
}

/**
 * A schema without its documentation keys, standing alone: a `$ref` to another component is
 * replaced by that component (a component that refers back to itself is refused), and
 * `writeOnly`/`readOnly` (meaningful only in the contract's requests and responses) are dropped.
 */
function runtimeSchema(
  name: string,
  node: unknown,
  where: string,
  components: Record<string, unknown>,
  seen: readonly string[] = [name],
): unknown {
  if (Array.isArray(node)) return node.map((item, i) => runtimeSchema(name, item, `${where}/${i}`, components, seen));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const target = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(ref)?.[1];
    if (!target || !(target in components)) throw new Error(`openapi.yaml: ${name} has an unresolvable $ref ${ref} at ${where}`);
    if (seen.includes(target)) throw new Error(`openapi.yaml: ${name} refers to itself through ${target}; a runtime schema must be finite`);
    return runtimeSchema(name, components[target], `${where}/$ref(${target})`, components, [...seen, target]);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    // `properties` maps names to schemas: a property may be called `description`.
    if ((DOC_KEYS.has(key) || key === 'writeOnly' || key === 'readOnly') && !where.endsWith('/properties')) continue;
    out[key] = runtimeSchema(name, value, `${where}/${key}`, components, seen);
  }
  return out;
}

/** The runtime schemas module: one `as const` object per component of RUNTIME_SCHEMAS. */
function runtimeSchemas(doc: { components: { schemas: Record<string, unknown> } }): string {
  const lines = [
    '/**',
    ' * JSON Schemas of contract components the server validates itself at run time (documents it',
    ' * fetches), copied from openapi.yaml without their documentation keys. Their types are',
    " * `components['schemas'][name]` in ./openapi.ts.",
    ' */',
  ];
  for (const name of RUNTIME_SCHEMAS) {
    const schema = doc.components.schemas[name];
    if (!schema) throw new Error(`openapi.yaml: components.schemas.${name} is missing`);
    const json = JSON.stringify(runtimeSchema(name, schema, `#/components/schemas/${name}`, doc.components.schemas), null, 2);
    lines.push('', `/** \`#/components/schemas/${name}\`. */`, `export const ${name}Schema = ${json} as const;`);
  }
  return `${lines.join('\n')}\n`;
}

async function render(): Promise<Map<string, string>> {
  const source = fs.readFileSync(SPEC, 'utf8');
  const hash = createHash('sha256').update(source).digest('hex');
  const doc = parse(source);
  const ast = await openapiTS(doc, { alphabetize: false, exportType: false });
  const files = new Map<string, string>();
  files.set(`${OUT_DIR}/openapi.ts`, `${banner(hash)}/* eslint-disable */\n${astToString(ast)}`);
  files.set(`${OUT_DIR}/operation-index.ts`, `${banner(hash)}${operationIndex(doc)}`);
  files.set(`${OUT_DIR}/schemas.ts`, `${banner(hash)}${runtimeSchemas(doc)}`);
  files.set(CONFIG_DOCS_PATH, await renderConfigDocs(ROOT));
  return files;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const files = await render();
  let drift = false;
  for (const [name, content] of files) {
    const target = path.join(ROOT, name);
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
    if (current === content) continue;
    if (check) {
      drift = true;
      const source = name === CONFIG_DOCS_PATH ? 'SETTINGS in src/config.ts' : 'openapi.yaml';
      console.error(`${name} is out of date with ${source}; run \`npm run codegen\``);
    } else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content);
      console.log(`wrote ${name}`);
    }
  }
  if (drift) process.exitCode = 1;
  else if (check) console.log(`${[...files.keys()].join(', ')} are up to date`);
}

await main();
