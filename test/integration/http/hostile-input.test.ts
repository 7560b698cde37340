import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { OPERATIONS } from '../../../src/generated/operation-index.js';
import type { ApiResponse } from '../../helpers/api-client.js';
import { SPEC } from '../../helpers/contract.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/**
 * Hostile input sent to every REST operation of openapi.yaml, generated from the contract: the
 * NUL character (U+0000) in every path parameter, every query parameter and every body field
 * (inside strings, arrays and free-form objects, as a value and as a key), the largest and a
 * too-large `page`, and a missing body next to headers and cookies that must not be echoed. Every
 * answer is a 422 naming the field (never a 500, on PGlite and PostgreSQL alike), and every
 * response is checked against the contract by the client.
 */

type Op = (typeof OPERATIONS)[number];
type Loc = (string | number)[];
const NUL = '\u0000';
const MAX_PAGE = 1_000_000;

function deref(obj: any): any {
  let cur = obj;
  while (cur && typeof cur === 'object' && typeof cur.$ref === 'string') {
    const ref: string = cur.$ref;
    cur = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: any, p: string) => acc[p.replace(/~1/g, '/').replace(/~0/g, '~')], SPEC);
  }
  return cur;
}

function parameters(op: Op): any[] {
  const item = SPEC.paths[op.path];
  return [...(item.parameters ?? []), ...(item[op.method].parameters ?? [])].map(deref);
}

function bodySchema(op: Op): any {
  return deref(deref(SPEC.paths[op.path][op.method].requestBody)?.content?.['application/json']?.schema);
}

function types(schema: any): string[] {
  if (Array.isArray(schema?.type)) return schema.type;
  return schema?.type ? [schema.type] : [];
}

/** A value that satisfies a schema well enough for the rest of a request to be valid. */
function sample(raw: any, depth = 0): unknown {
  const s = deref(raw) ?? {};
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((v: unknown) => v !== null);
  if (s.examples?.length) return s.examples[0];
  const branches = s.oneOf ?? s.anyOf;
  if (branches)
    return sample(
      branches.find((b: any) => !types(deref(b)).includes('null') || types(deref(b)).length > 1),
      depth + 1,
    );
  if (s.allOf) return sample(s.allOf[0], depth + 1);
  const t = types(s).filter((x) => x !== 'null');
  if (t.includes('object') || s.properties) {
    const out: Record<string, unknown> = {};
    if (depth < 6) for (const name of s.required ?? []) out[name] = sample(s.properties?.[name], depth + 1);
    return out;
  }
  if (t.includes('array')) return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, depth + 1));
  if (t.includes('integer') || t.includes('number')) return s.minimum ?? 1;
  if (t.includes('boolean')) return true;
  if (s.format === 'uuid') return randomUUID();
  if (s.format === 'email') return 'probe@example.com';
  if (s.format === 'uri') return 'https://example.com/probe';
  if (s.format === 'date-time') return '2030-01-01T00:00:00Z';
  return 'probe'.padEnd(s.minLength ?? 0, 'x');
}

/**
 * A value of the schema's shape that carries a NUL character, and where (below the field) the
 * NUL sits; `undefined` when the schema cannot hold a string anywhere (integers, booleans).
 * Free-form objects get the NUL nested two levels down, or in a key (`inKey`).
 */
function hostile(raw: any, inKey = false, depth = 0): { value: unknown; at: Loc } | undefined {
  const s = deref(raw);
  if (!s || depth > 6) return undefined;
  const branches = s.oneOf ?? s.anyOf ?? s.allOf;
  if (branches) {
    for (const b of branches) {
      const h = hostile(b, inKey, depth + 1);
      if (h) return h;
    }
    return undefined;
  }
  const t = types(s);
  if (t.includes('string') || (Array.isArray(s.enum) && s.enum.some((v: unknown) => typeof v === 'string'))) {
    return inKey ? undefined : { value: `nul${NUL}here`, at: [] };
  }
  if (t.includes('array')) {
    const inner = hostile(s.items ?? {}, inKey, depth + 1);
    return inner && { value: [inner.value], at: [0, ...inner.at] };
  }
  if (t.includes('object') || s.properties || s.additionalProperties !== undefined) {
    for (const [name, child] of Object.entries<any>(s.properties ?? {})) {
      const inner = hostile(child, inKey, depth + 1);
      if (inner) return { value: { [name]: inner.value }, at: [name, ...inner.at] };
    }
    const extra = s.additionalProperties;
    if (extra === false) return undefined;
    if (inKey) return { value: { [`key${NUL}name`]: 'value' }, at: [`key${NUL}name`] };
    if (extra === undefined || extra === true) return { value: { outer: { inner: ['ok', `nul${NUL}deep`] } }, at: ['outer', 'inner', 1] };
    const inner = hostile(extra, false, depth + 1);
    return inner && { value: { some_key: inner.value }, at: ['some_key', ...inner.at] };
  }
  if (t.length === 0 && Object.keys(s).every((k) => ['description', 'examples', 'title'].includes(k))) {
    // An untyped field (any JSON value): a string will do.
    return inKey ? undefined : { value: `nul${NUL}here`, at: [] };
  }
  return undefined;
}

/** Ids of real resources by path parameter name, so list operations under them answer 200. */
const known: Record<string, string> = {};

function pathWith(op: Op, override?: { name: string; raw: string }): string {
  let path: string = op.path;
  for (const p of parameters(op).filter((x) => x.in === 'path')) {
    const value = override && override.name === p.name ? override.raw : encodeURIComponent(String(known[p.name] ?? sample(p.schema)));
    path = path.replace(`{${p.name}}`, value);
  }
  const query = new URLSearchParams();
  for (const p of parameters(op).filter((x) => x.in === 'query' && x.required)) query.set(p.name, String(sample(p.schema)));
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

function issuesAt(res: ApiResponse, loc: Loc): any[] {
  const detail: { loc: Loc }[] = Array.isArray(res.body?.detail) ? res.body.detail : [];
  return detail.filter((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
}

function issueAt(res: ApiResponse, loc: Loc, type?: string): any {
  return issuesAt(res, loc).find((d) => type === undefined || d.type === type);
}

/** True when a plain string parameter (no format, enum or pattern decides it first). */
function plainString(schema: any): boolean {
  const s = deref(schema) ?? {};
  return types(s).includes('string') && !s.format && !s.enum && !s.pattern;
}

describe('hostile input to every operation of the contract', function () {
  this.timeout(180000);
  let t: TestServer;
  const rest = OPERATIONS.filter((o) => o.transport === 'rest');

  before(async () => {
    t = await startTestServer({ env: { TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '1000000' } });
    const server = await t.owner.post('/api/v1/servers', { name: 'listed', transport: 'stdio', command: 'node', enabled: false });
    expect(server.status, server.text).to.equal(201);
    known.server_id = server.body.id;
  });
  after(async () => {
    await t?.stop();
  });

  /** Sends a request as the owner (public operations ignore the key). */
  function send(op: Op, path: string, body?: unknown, extra: { headers?: Record<string, string>; cookie?: string } = {}) {
    return t.owner.request(op.method.toUpperCase(), path, { ...(body !== undefined ? { body } : {}), ...extra });
  }

  it('NUL in a path parameter: 422 naming it, for every operation with one', async () => {
    const failures: string[] = [];
    let cases = 0;
    for (const op of rest) {
      for (const p of parameters(op).filter((x) => x.in === 'path')) {
        cases += 1;
        const body = bodySchema(op) ? sample(bodySchema(op)) : undefined;
        const res = await send(op, pathWith(op, { name: p.name, raw: 'nul%00here' }), body);
        const wantType = plainString(p.schema) ? 'string_nul_character' : undefined;
        const issue = issueAt(res, ['path', p.name], wantType);
        if (res.status !== 422 || !issue) failures.push(`${op.operationId} path.${p.name}: ${res.status} ${res.text.slice(0, 200)}`);
        // The input is echoed, except where the parameter is a secret (the invitation token).
        else if (wantType) expect(issue.input).to.be.oneOf([`nul${NUL}here`, '[redacted]']);
      }
    }
    expect(cases).to.be.greaterThan(30);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('NUL in a query parameter: 422 naming it, for every operation with one', async () => {
    const failures: string[] = [];
    let cases = 0;
    for (const op of rest) {
      for (const p of parameters(op).filter((x) => x.in === 'query')) {
        cases += 1;
        const base = pathWith(op);
        const sep = base.includes('?') ? '&' : '?';
        const without = base.replace(new RegExp(`([?&])${p.name}=[^&]*&?`), '$1').replace(/[?&]$/, '');
        const target = `${without}${without.includes('?') ? '&' : sep}${encodeURIComponent(p.name)}=nul%00here`;
        const body = bodySchema(op) ? sample(bodySchema(op)) : undefined;
        const res = await send(op, target, body);
        const wantType = plainString(p.schema) ? 'string_nul_character' : undefined;
        const issue = issueAt(res, ['query', p.name], wantType);
        if (res.status !== 422 || !issue) failures.push(`${op.operationId} query.${p.name}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(cases).to.be.greaterThan(30);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('NUL in any body field (strings, array items, free-form values and keys at depth): 422 naming it', async () => {
    const failures: string[] = [];
    let cases = 0;
    const onlyIssue: string[] = [];
    for (const op of rest) {
      const schema = bodySchema(op);
      if (!schema) continue;
      const base = sample(schema) as Record<string, unknown>;
      for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
        for (const inKey of [false, true]) {
          const h = hostile(prop, inKey);
          if (!h) continue;
          cases += 1;
          const res = await send(op, pathWith(op), { ...base, [name]: h.value });
          const loc = ['body', name, ...h.at];
          const issue = issueAt(res, loc, 'string_nul_character');
          if (res.status !== 422 || !issue)
            failures.push(`${op.operationId} ${JSON.stringify(loc)}: ${res.status} ${res.text.slice(0, 300)}`);
          else if (res.body.detail.length === 1) onlyIssue.push(op.operationId);
        }
      }
    }
    expect(cases).to.be.greaterThan(100);
    expect(failures, failures.join('\n')).to.deep.equal([]);
    // Many of those bodies were otherwise valid: the NUL check also runs when the schemas pass.
    expect(new Set(onlyIssue).size).to.be.greaterThan(10);
  });

  it('page: the contract maximum is an empty page; above it, or past 2^53, a 422 (never a 500)', async () => {
    const failures: string[] = [];
    const listOps = rest.filter((op) => parameters(op).some((p) => p.in === 'query' && p.name === 'page'));
    expect(listOps.length).to.be.greaterThan(8);
    for (const op of listOps) {
      expect(deref(parameters(op).find((p) => p.name === 'page').schema).maximum, op.operationId).to.equal(MAX_PAGE);
      const base = pathWith(op);
      const sep = base.includes('?') ? '&' : '?';
      const last = await send(op, `${base}${sep}page=${MAX_PAGE}&page_size=100`);
      // An empty page (or 501 where the feature has not landed yet).
      if (last.status === 200) {
        if (last.body.items.length !== 0 || last.body.page !== MAX_PAGE)
          failures.push(`${op.operationId} page=max: ${last.text.slice(0, 200)}`);
      } else if (last.status !== 501) failures.push(`${op.operationId} page=max: ${last.status} ${last.text.slice(0, 200)}`);
      for (const page of [String(MAX_PAGE + 1), '9007199254740993', '99999999999999999999999']) {
        const res = await send(op, `${base}${sep}page=${page}`);
        if (res.status !== 422 || !issueAt(res, ['query', 'page'])) failures.push(`${op.operationId} page=${page}: ${res.status}`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('a missing body: 422 on body with no input, never echoing a header or a cookie', async () => {
    const withBody = rest.filter((op) => deref(SPEC.paths[op.path][op.method].requestBody)?.required);
    expect(withBody.length).to.be.greaterThan(20);
    const failures: string[] = [];
    for (const op of withBody) {
      const res = await send(op, pathWith(op), undefined, {
        headers: { 'x-probe': 'header-canary-value' },
        cookie: 'theme=cookie-canary-value; other=x',
      });
      const issue = issueAt(res, ['body']);
      if (res.status !== 422 || issue?.type !== 'missing' || issue.input !== null)
        failures.push(`${op.operationId}: ${res.status} ${res.text}`);
      if (/canary|authorization|x-probe|theme|cookie/i.test(res.text)) failures.push(`${op.operationId} echoes: ${res.text}`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  describe('otherwise valid requests that carry a NUL: 422, nothing written', () => {
    it('a server whose args, env value, env key or command holds a NUL', async () => {
      const valid = { name: 'nul-probe', transport: 'stdio', command: 'node', args: ['server.js'], env: { MODE: 'test' } };
      for (const [body, loc] of [
        [{ ...valid, args: ['ok', `bad${NUL}`] }, ['body', 'args', 1]],
        [{ ...valid, env: { MODE: `te${NUL}st` } }, ['body', 'env', 'MODE']],
        [{ ...valid, command: `no${NUL}de` }, ['body', 'command']],
        [{ ...valid, description: `d${NUL}` }, ['body', 'description']],
      ] as const) {
        const res = await t.owner.post('/api/v1/servers', body);
        expect(res.status, res.text).to.equal(422);
        expect(res.body.detail).to.have.length(1);
        expect(res.body.detail[0]).to.deep.include({ loc, type: 'string_nul_character' });
      }
      const listed = await t.owner.get('/api/v1/servers?search=nul-probe');
      expect(listed.body.total).to.equal(0);
    });

    it('a bundle whose description, or a nested override default, holds a NUL', async () => {
      const res = await t.owner.post('/api/v1/bundles', { name: 'nul-bundle', description: `x${NUL}y` });
      expect(res.status).to.equal(422);
      expect(res.body.detail).to.deep.equal([
        {
          loc: ['body', 'description'],
          msg: 'Input should not contain the NUL character (U+0000)',
          type: 'string_nul_character',
          input: `x${NUL}y`,
          ctx: { character: 'U+0000' },
        },
      ]);
      const nested = await t.owner.post('/api/v1/bundles', {
        name: 'nul-bundle',
        tools: [{ tool_id: randomUUID(), override: { defaults: { filter: { terms: ['a', `b${NUL}`] } } } }],
      });
      expect(nested.status).to.equal(422);
      expect(nested.body.detail[0].loc).to.deep.equal(['body', 'tools', 0, 'override', 'defaults', 'filter', 'terms', 1]);
      expect((await t.owner.get('/api/v1/bundles?search=nul-bundle')).body.total).to.equal(0);
    });

    it('an OAuth provider whose free-form config holds a NUL, its secret redacted in the echo', async () => {
      const res = await t.owner.post('/api/v1/settings/auth/providers', {
        provider_type: 'github',
        display_name: 'GitHub',
        client_id: 'id',
        client_secret: `secret${NUL}value`,
        config: { scope: `read${NUL}` },
      });
      expect(res.status).to.equal(422);
      const bySecret = issueAt(res, ['body', 'client_secret']);
      expect(bySecret).to.include({ type: 'string_nul_character', input: '[redacted]' });
      expect(issueAt(res, ['body', 'config', 'scope'])).to.include({ type: 'string_nul_character' });
      expect(res.text).to.not.include('secret\\u0000value');
      expect((await t.owner.get('/api/v1/settings/auth/providers')).body.items).to.have.length(0);
    });

    it('a search string, and a query key, with a NUL', async () => {
      const res = await t.owner.get('/api/v1/bundles?search=a%00b');
      expect(res.status).to.equal(422);
      expect(res.body.detail).to.have.length(1);
      expect(res.body.detail[0]).to.deep.include({ loc: ['query', 'search'], type: 'string_nul_character', input: `a${NUL}b` });
      const key = await t.owner.get('/api/v1/bundles?sea%00rch=x');
      expect(key.status).to.equal(422);
    });

    it('a body nested 100000 levels deep answers 422, not a crashed process', async () => {
      const deep = `${'['.repeat(100_000)}"${'\\u0000'}"${']'.repeat(100_000)}`;
      const res = await t.owner.request('POST', '/api/v1/bundles', { rawBody: `{"name":"deep","description":${deep}}` });
      expect(res.status).to.equal(422);
      expect((await t.owner.get('/health')).status).to.equal(200);
    });
  });
});
