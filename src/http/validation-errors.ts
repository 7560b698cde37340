import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from '../errors.js';

/** Property names whose values are secrets: never echoed back in an error's `input`. */
const SECRET_NAME = /secret|password|api_?key|token|authorization|cookie|credential|^key$|headers|secret_env/i;
const MAX_ECHO = 1000;
const REDACTED = '[redacted]';

/** ajv's section names (openapi-backend's parameter object) to the spec's `loc` roots. */
const SECTION: Record<string, string> = {
  requestBody: 'body',
  query: 'query',
  path: 'path',
  header: 'header',
  cookie: 'cookie',
};

/**
 * Copies an input for echoing in a 422: values under secret-looking names are redacted, long
 * strings cut, deep or wide structures summarised, so an error never leaks a secret or balloons.
 */
export function safeEcho(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 4) return Array.isArray(value) ? '[…]' : '{…}';
  if (Array.isArray(value)) return value.slice(0, 20).map((v) => safeEcho(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, 50)) {
    out[k] = SECRET_NAME.test(k) ? REDACTED : safeEcho(v, depth + 1);
  }
  return out;
}

function decodePointer(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: unknown, parts: readonly string[]): unknown {
  let cur = root;
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'int',
  number: 'float',
  string: 'string',
  boolean: 'bool',
  object: 'dict',
  array: 'list',
  null: 'none',
};

/** Maps one ajv error to the spec's `type`, `msg` and `ctx` (Pydantic-style vocabulary). */
function describe(e: ErrorObject): Pick<ValidationIssue, 'type' | 'msg' | 'ctx'> {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { type: 'missing', msg: 'Field required' };
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    case 'type': {
      const expected = String(p.type).split(',')[0] ?? 'value';
      return {
        type: `${TYPE_NAMES[expected] ?? expected}_type`,
        msg: `Input should be a valid ${expected}`,
        ctx: { expected: String(p.type) },
      };
    }
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${String(p.limit)}`, ctx: { ge: p.limit } };
    case 'exclusiveMinimum':
      return { type: 'greater_than', msg: `Input should be greater than ${String(p.limit)}`, ctx: { gt: p.limit } };
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(p.limit)}`, ctx: { le: p.limit } };
    case 'exclusiveMaximum':
      return { type: 'less_than', msg: `Input should be less than ${String(p.limit)}`, ctx: { lt: p.limit } };
    case 'minLength':
      return { type: 'string_too_short', msg: `String should have at least ${String(p.limit)} characters`, ctx: { min_length: p.limit } };
    case 'maxLength':
      return { type: 'string_too_long', msg: `String should have at most ${String(p.limit)} characters`, ctx: { max_length: p.limit } };
    case 'minItems':
      return { type: 'too_short', msg: `List should have at least ${String(p.limit)} items`, ctx: { min_length: p.limit } };
    case 'maxItems':
      return { type: 'too_long', msg: `List should have at most ${String(p.limit)} items`, ctx: { max_length: p.limit } };
    case 'minProperties':
      return { type: 'too_short', msg: `Object should have at least ${String(p.limit)} fields`, ctx: { min_length: p.limit } };
    case 'maxProperties':
      return { type: 'too_long', msg: `Object should have at most ${String(p.limit)} fields`, ctx: { max_length: p.limit } };
    case 'pattern':
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${String(p.pattern)}'`, ctx: { pattern: p.pattern } };
    case 'enum':
      return {
        type: 'enum',
        msg: `Input should be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        ctx: { expected: p.allowedValues },
      };
    case 'const':
      return { type: 'literal_error', msg: `Input should be ${JSON.stringify(p.allowedValue)}`, ctx: { expected: p.allowedValue } };
    case 'format': {
      const format = String(p.format);
      const type =
        format === 'uuid' ? 'uuid_parsing' : format === 'date-time' ? 'datetime_parsing' : format === 'uri' ? 'url_parsing' : 'value_error';
      return { type, msg: `Input should be a valid ${format}`, ctx: { format } };
    }
    case 'uniqueItems':
      return { type: 'value_error', msg: 'List items should be unique', ctx: { duplicates: [p.i, p.j] } };
    case 'parse':
      return { type: 'json_invalid', msg: `Invalid JSON: ${e.message ?? 'parse error'}`, ctx: { error: e.message ?? '' } };
    default:
      return { type: 'value_error', msg: e.message ? `Input ${e.message}` : 'Invalid input', ctx: { keyword: e.keyword } };
  }
}

/**
 * Turns openapi-backend's ajv errors into the spec's 422 `detail` entries. `parameters` is the
 * object that was validated (`{path, query, header, cookie, requestBody}`), used to echo inputs.
 * Errors of `oneOf`/`anyOf` wrappers that only repeat their branches' errors are dropped.
 */
export function toValidationIssues(errors: readonly ErrorObject[], parameters: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const hasSpecific = errors.some((e) => !['oneOf', 'anyOf', 'if'].includes(e.keyword));
  for (const e of errors) {
    if (hasSpecific && ['oneOf', 'anyOf', 'if'].includes(e.keyword)) continue;
    const parts = decodePointer(e.instancePath);
    let loc: (string | number)[];
    let input: unknown;
    if (e.keyword === 'parse') {
      loc = parts.length ? parts : ['body'];
      if (!parts.length) input = undefined;
      else input = valueAt(parameters, parts);
      loc = loc.map((s, i) => (i === 0 ? (SECTION[String(s)] ?? s) : s));
    } else {
      const [section = 'requestBody', ...rest] = parts;
      // Never echo a whole parameter section (every header, the cookie...) or the request
      // itself: a missing body or a missing parameter has no input (Pydantic's `null`).
      input = parts.length === 0 || (parts.length === 1 && section !== 'requestBody') ? null : valueAt(parameters, parts);
      if (e.keyword === 'required') {
        const missing = String((e.params as { missingProperty: string }).missingProperty);
        // A missing body is reported on `body` itself, not on the validator's wrapper property.
        if (!(parts.length === 0 && missing === 'requestBody')) rest.push(missing);
      } else if (e.keyword === 'additionalProperties') {
        const extra = String((e.params as { additionalProperty: string }).additionalProperty);
        rest.push(extra);
        input = valueAt(parameters, [...parts, extra]);
      }
      // Parameter objects (path/query/header/cookie) with nothing below them mean the section itself.
      loc = [SECTION[section] ?? section, ...rest.map((r) => (/^\d+$/.test(r) ? Number(r) : r))];
      if (SECTION[section] === undefined && parts.length === 0) loc = ['body', ...rest];
    }
    const key = `${loc.join('\u0000')}|${e.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const secret = loc.some((l) => typeof l === 'string' && SECRET_NAME.test(l));
    issues.push({ loc, input: secret ? REDACTED : safeEcho(input), ...describe(e) });
  }
  return issues.map((i) => ({ ...i, ctx: i.ctx ?? {} }));
}

/** The character PostgreSQL cannot store in `text` or `jsonb`, refused in every request string. */
const NUL = '\u0000';
/** Most NUL issues reported for one request; the rest are summarised by the first ones. */
const MAX_NUL_ISSUES = 20;

/** A value met during the walk, linked to its parent so its `loc` is built only when needed. */
interface Visit {
  value: unknown;
  key: string | number;
  parent: Visit | null;
}

function locOf(visit: Visit): (string | number)[] {
  const loc: (string | number)[] = [];
  for (let v: Visit | null = visit; v; v = v.parent) loc.push(v.key);
  return loc.reverse();
}

/**
 * Finds the NUL character (U+0000) anywhere in a request: in parameter values, in body strings,
 * and in the keys and values of nested free-form objects (`config`, `env`, override `defaults`,
 * schemas), at any depth. Each occurrence is a 422 issue located like a schema error
 * (`['body', 'env', 'PATH']`, `['query', 'search']`). PostgreSQL cannot store the character in
 * `text` or `jsonb`, so it is refused here, once for every operation, rather than failing in a
 * store. `rawBody`, when given, is the body's JSON text: without a `\u0000` escape in it (JSON
 * has no other way to carry the character) the body is not walked. The walk is iterative, so a
 * deeply nested body cannot exhaust the stack.
 */
export function nulCharacterIssues(sections: { path?: unknown; query?: unknown; body?: unknown }, rawBody?: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Visit[] = [];
  // Pushed in reverse so that body issues come out first, in document order.
  if (sections.path != null) stack.push({ value: sections.path, key: 'path', parent: null });
  if (sections.query != null) stack.push({ value: sections.query, key: 'query', parent: null });
  if (sections.body != null && (rawBody === undefined || rawBody.includes('\\u0000'))) {
    stack.push({ value: sections.body, key: 'body', parent: null });
  }
  while (stack.length && issues.length < MAX_NUL_ISSUES) {
    const visit = stack.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      if (value.includes(NUL)) issues.push(nulIssue(locOf(visit), value, 'Input should not contain the NUL character (U+0000)'));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: visit });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const child: Visit = { value: (value as Record<string, unknown>)[key], key, parent: visit };
        if (key.includes(NUL)) issues.push(nulIssue(locOf(child), key, 'Field names should not contain the NUL character (U+0000)'));
        else stack.push(child);
      }
    }
  }
  return issues.slice(0, MAX_NUL_ISSUES);
}

function nulIssue(loc: (string | number)[], input: string, msg: string): ValidationIssue {
  const secret = loc.some((l) => typeof l === 'string' && SECRET_NAME.test(l));
  return { loc, msg, type: 'string_nul_character', input: secret ? REDACTED : safeEcho(input), ctx: { character: 'U+0000' } };
}
