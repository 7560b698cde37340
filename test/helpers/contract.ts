import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { OPERATIONS } from '../../src/generated/operation-index.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The parsed contract. */

export const SPEC: any = parse(fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8'));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...SPEC, $id: 'openapi.yaml' });
const validators = new Map<string, ValidateFunction>();

function validatorFor(ref: string): ValidateFunction {
  let v = validators.get(ref);
  if (!v) {
    v = ajv.compile({ $ref: ref });
    validators.set(ref, v);
  }
  return v;
}

function pointer(...parts: string[]): string {
  return `openapi.yaml#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

const matchers = OPERATIONS.map((op) => ({
  op,
  regex: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  literal: !op.path.includes('{'),
}));

/** The contract operation a request goes to, preferring literal paths as the router does. */
export function findOperation(method: string, urlPath: string): (typeof OPERATIONS)[number] | undefined {
  const m = method.toLowerCase();
  const pathOnly = urlPath.split('?')[0]!.replace(/\/+$/, '') || '/';
  const hits = matchers.filter((x) => x.op.method === m && x.regex.test(pathOnly));
  return (hits.find((h) => h.literal) ?? hits[0])?.op;
}

/** Resolves a `$ref`'d response object to its JSON pointer. */
function responsePointer(op: (typeof OPERATIONS)[number], status: number): string | undefined {
  const responses = SPEC.paths[op.path][op.method].responses as Record<string, { $ref?: string }>;
  const key =
    String(status) in responses
      ? String(status)
      : `${String(status)[0]}XX` in responses
        ? `${String(status)[0]}XX`
        : 'default' in responses
          ? 'default'
          : undefined;
  if (!key) return undefined;
  const res = responses[key]!;
  return res.$ref ? `openapi.yaml${res.$ref}` : pointer('paths', op.path, op.method, 'responses', key);
}

function resolve(ref: string): unknown {
  const [, frag = ''] = ref.split('#');
  return frag
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((acc, p) => (acc as Record<string, unknown>)[p], SPEC);
}

/**
 * Throws unless the response is one the contract allows: a declared status (or `default`) for
 * the operation, and a JSON body valid against that status's schema. Requests to no operation
 * must answer 404 or 405 with an ErrorResponse.
 */
export function assertResponseMatchesContract(method: string, urlPath: string, status: number, contentType: string, body: unknown): void {
  const op = findOperation(method, urlPath);
  if (!op) {
    if (status !== 404 && status !== 405) throw new Error(`${method} ${urlPath}: no operation in the contract, yet answered ${status}`);
    const v = validatorFor(pointer('components', 'schemas', 'ErrorResponse'));
    if (!v(body)) throw new Error(`${method} ${urlPath} ${status}: body is not an ErrorResponse: ${ajv.errorsText(v.errors)}`);
    return;
  }
  const ptr = responsePointer(op, status);
  if (!ptr) throw new Error(`${op.operationId}: status ${status} is not declared in the contract`);
  const res = resolve(ptr) as { content?: Record<string, { schema?: unknown }>; $ref?: string };
  const response = res.$ref ? (resolve(`openapi.yaml${res.$ref}`) as typeof res) : res;
  if (!response.content) {
    if (body !== undefined && body !== '' && body !== null)
      throw new Error(`${op.operationId} ${status}: contract declares no body, got one`);
    return;
  }
  const media = contentType.split(';')[0]!.trim();
  if (!(media in response.content))
    throw new Error(`${op.operationId} ${status}: content type ${media} not declared (${Object.keys(response.content).join(', ')})`);
  if (media !== 'application/json') return;
  const v = validatorFor(`${ptr}/content/application~1json/schema`);
  if (!v(body))
    throw new Error(
      `${op.operationId} ${status}: body violates the contract: ${ajv.errorsText(v.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
}

/**
 * Throws unless a server-sent event is one the operation declares (`x-sse-events`) and its
 * payload is valid against that event's schema.
 */
export function assertSseEventMatchesContract(operationId: string, event: string, data: unknown): void {
  const op = OPERATIONS.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`${operationId}: no such operation`);
  const events = SPEC.paths[op.path][op.method]['x-sse-events'] as Record<string, unknown> | undefined;
  if (!events || !(event in events)) throw new Error(`${operationId}: event ${event} is not declared in x-sse-events`);
  const v = validatorFor(pointer('paths', op.path, op.method, 'x-sse-events', event));
  if (!v(data)) throw new Error(`${operationId} event ${event}: payload violates the contract: ${ajv.errorsText(v.errors)}`);
}
