import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { parse } from 'yaml';
import { OPERATIONS } from '../../src/generated/operation-index.js';
import { ROOT, SPEC } from '../helpers/contract.js';

/**
 * What an integrator gets: a client generated from openapi.yaml by openapi-typescript with its
 * default options (`defaultNonNullable: true`, under which a property with a `default` in a
 * component schema becomes required), and a small program that sends the smallest bodies the
 * contract allows — rotate with `{}`, and every request body with only its required fields. The
 * program must type-check with the TypeScript compiler.
 */

type AnyObj = any;

function deref(obj: AnyObj, doc: AnyObj = SPEC): AnyObj {
  let cur = obj;
  while (cur && typeof cur === 'object' && typeof cur.$ref === 'string') {
    cur = (cur.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: AnyObj, p: string) => acc[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return cur;
}

/** Component schemas a request body can reach (through properties, items, compositions). */
function requestSchemas(doc: AnyObj): Set<string> {
  const names = new Set<string>();
  const visit = (s: AnyObj): void => {
    if (!s || typeof s !== 'object') return;
    if (typeof s.$ref === 'string') {
      const name = /^#\/components\/schemas\/(.+)$/.exec(s.$ref)?.[1];
      if (!name || names.has(name)) return;
      names.add(name);
      visit(doc.components.schemas[name]);
      return;
    }
    for (const k of ['oneOf', 'anyOf', 'allOf']) for (const b of s[k] ?? []) visit(b);
    for (const k of ['items', 'additionalProperties', 'then', 'else', 'if']) visit(s[k]);
    for (const p of Object.values(s.properties ?? {})) visit(p);
  };
  for (const item of Object.values<AnyObj>(doc.paths)) {
    for (const method of ['post', 'put', 'patch', 'delete', 'get']) {
      visit(deref(item[method]?.requestBody, doc)?.content?.['application/json']?.schema);
    }
  }
  return names;
}

/** An object literal with only the required properties of an object schema, each `never`. */
function minimalLiteral(schema: AnyObj): string | undefined {
  const s = deref(schema);
  if (!s || !(s.type === 'object' || s.properties) || s.oneOf || s.anyOf) return undefined;
  return `{ ${(s.required ?? []).map((n: string) => `${JSON.stringify(n)}: null as never`).join(', ')} }`;
}

/** The integrator's program: hand-written calls, then a sweep over every request body. */
function program(doc: AnyObj): string {
  const lines = [
    "import type { components, operations } from './api.js';",
    "type Body<Op extends keyof operations> = NonNullable<operations[Op]['requestBody']>['content']['application/json'];",
    '',
    '// What the README and the contract show.',
    "export const rotate: Body<'rotateApiKey'> = {};",
    "export const rotateWithGrace: Body<'rotateApiKey'> = { grace_period_seconds: 3600 };",
    "export const key: Body<'createApiKey'> = { name: 'ci' };",
    "export const invite: Body<'createInvitation'> = { email: 'a@example.com' };",
    "export const server: Body<'createServer'> = { name: 'github', transport: 'stdio', command: 'npx' };",
    "export const provider: Body<'createOAuthProvider'> = { provider_type: 'github', display_name: 'GitHub', client_id: 'id', client_secret: 's' };",
    "export const bundle: Body<'createBundle'> = { name: 'b', tools: [{ tool_id: 'x', override: { name: 'renamed' } }] };",
    "export const override: Body<'updateBundleToolOverride'> = { hidden_arguments: ['token'] };",
    '',
    '// Every request body with only its required fields.',
  ];
  for (const op of OPERATIONS) {
    const rb = deref(doc.paths[op.path][op.method].requestBody, doc);
    const literal = minimalLiteral(rb?.content?.['application/json']?.schema);
    if (literal) lines.push(`export const op_${op.operationId}: Body<'${op.operationId}'> = ${literal};`);
  }
  lines.push('', '// Every component schema a request body reaches, with only its required fields.');
  for (const name of [...requestSchemas(doc)].sort()) {
    const literal = minimalLiteral(doc.components.schemas[name]);
    if (literal) lines.push(`export const schema_${name}: components['schemas']['${name}'] = ${literal};`);
  }
  return `${lines.join('\n')}\n`;
}

/** Generates the client with default options and type-checks the program; returns the errors. */
async function typeCheck(doc: AnyObj, dir: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(doc)));
  fs.writeFileSync(path.join(dir, 'client.ts'), program(doc));
  const prog = ts.createProgram([path.join(dir, 'client.ts')], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(prog)
    .map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('contract: a client generated by openapi-typescript (default options)', function () {
  this.timeout(60000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-client-'));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lets a program omit every optional request field (rotate with {}) and type-checks', async () => {
    const doc = parse(fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8'));
    const source = program(doc);
    // The sweep covers the request bodies and the schemas they reach, not just a few examples.
    expect(source.match(/^export const op_/gm)?.length).to.be.greaterThan(20);
    expect(source).to.match(/schema_BundleToolOverride/);
    const errors = await typeCheck(doc, path.join(dir, 'contract'));
    expect(errors, errors.join('\n')).to.deep.equal([]);
  });

  it('would catch a `default` in a request schema (the check can fail)', async () => {
    const doc = parse(fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8'));
    doc.components.schemas.ApiKeyRotateRequest.properties.grace_period_seconds.default = 0;
    const errors = await typeCheck(doc, path.join(dir, 'with-default'));
    expect(errors.join('\n')).to.match(/grace_period_seconds/);
  });

  it('states request defaults in descriptions, never with the `default` keyword', () => {
    const offenders: string[] = [];
    for (const name of requestSchemas(SPEC)) {
      const s = deref(SPEC.components.schemas[name]);
      for (const [prop, schema] of Object.entries<AnyObj>(s.properties ?? {})) {
        if (schema && typeof schema === 'object' && 'default' in schema) offenders.push(`${name}.${prop}`);
      }
    }
    expect(offenders, `use "Default: …" in the description instead: ${offenders.join(', ')}`).to.deep.equal([]);
  });
});
