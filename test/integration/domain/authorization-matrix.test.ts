import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { OPERATIONS } from '../../../src/generated/operation-index.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { requiredScope } from '../../../src/domain/authorization.js';
import { roleAtLeast, type Role } from '../../../src/domain/principal.js';
import { ApiClient, type ApiResponse } from '../../helpers/api-client.js';
import { SPEC } from '../../helpers/contract.js';
import { createUser } from '../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/**
 * The authorization matrix, generated from openapi.yaml: every REST operation × every credential
 * state answers what its `x-min-role` says — 401 for no or a bad credential, 403 below the role,
 * anything but 401/403 at or above it (422, 404 or 501 all mean "got past authorization").
 */

type CredentialState =
  | 'no credential'
  | 'malformed key'
  | 'unknown key'
  | 'revoked key'
  | 'expired key'
  | 'forged session cookie'
  | 'logged-out session cookie'
  | 'member key'
  | 'read-only admin key'
  | 'admin key'
  | 'owner key'
  | 'member session cookie'
  | 'admin session cookie';

const VALID: Partial<Record<CredentialState, { role: Role; via: 'key' | 'cookie' }>> = {
  'member key': { role: 'member', via: 'key' },
  'read-only admin key': { role: 'admin', via: 'key' },
  'admin key': { role: 'admin', via: 'key' },
  'owner key': { role: 'owner', via: 'key' },
  'member session cookie': { role: 'member', via: 'cookie' },
  'admin session cookie': { role: 'admin', via: 'cookie' },
};

function deref(obj: any): any {
  if (!obj?.$ref) return obj;
  return (obj.$ref as string)
    .replace(/^#\//, '')
    .split('/')
    .reduce((acc: any, p: string) => acc[p], SPEC);
}

/** A value that satisfies a parameter schema well enough to reach the authorization step. */
function sample(schema: any): string {
  const s = deref(schema) ?? {};
  if (s.format === 'uuid') return randomUUID();
  if (Array.isArray(s.enum)) return String(s.enum[0]);
  if (s.type === 'integer' || s.type === 'number') return String(s.minimum ?? 1);
  if (s.type === 'boolean') return 'true';
  return 'matrix-probe';
}

/** The request for an operation: path params filled in, required query params, a minimal body. */
function requestFor(op: (typeof OPERATIONS)[number]): { path: string; body?: unknown } {
  const item = SPEC.paths[op.path];
  const operation = item[op.method];
  const params = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(deref);
  let path: string = op.path;
  const query = new URLSearchParams();
  for (const p of params) {
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(sample(p.schema)));
    if (p.in === 'query' && p.required) query.set(p.name, sample(p.schema));
  }
  const qs = query.toString();
  const body = deref(operation.requestBody)?.required ? {} : undefined;
  return { path: qs ? `${path}?${qs}` : path, ...(body !== undefined ? { body } : {}) };
}

function declaresCookie(op: (typeof OPERATIONS)[number]): boolean {
  const security = SPEC.paths[op.path][op.method].security ?? SPEC.security ?? [];
  return security.some((s: Record<string, unknown>) => 'CookieAuth' in s);
}

function expected(op: (typeof OPERATIONS)[number], state: CredentialState, cookieDeclared: boolean): 401 | 403 | 'pass' {
  if (op.minRole === 'public') return 'pass';
  const valid = VALID[state];
  if (!valid || (valid.via === 'cookie' && !cookieDeclared)) return 401;
  if (!roleAtLeast(valid.role, op.minRole as Role)) return 403;
  // A key with only the api:read scope may read but not change anything.
  if (state === 'read-only admin key' && requiredScope(op.method, op.path) !== 'api:read') return 403;
  return 'pass';
}

describe('authorization matrix (every REST operation × every credential state)', function () {
  this.timeout(120000);
  let t: TestServer;
  const clients = new Map<CredentialState, { token?: string; cookie?: string }>();

  const rest = OPERATIONS.filter((o) => o.transport === 'rest');
  // The gateway endpoint is authenticated like the REST API (a user API key, scope `mcp`, no
  // cookie), so it gets the same rows; the bundle routes take their key in the path instead.
  const gateway = OPERATIONS.filter((o) => o.transport === 'mcp' && o.path === '/mcp/gateway');

  it('covers every operation of openapi.yaml, each with a declared x-min-role', () => {
    const declared: string[] = [];
    for (const [path, item] of Object.entries<any>(SPEC.paths)) {
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const op = item[method];
        if (!op) continue;
        expect(op['x-min-role'], `${method.toUpperCase()} ${path} has no x-min-role`).to.be.oneOf([
          'public',
          'bundle_key',
          'member',
          'admin',
          'owner',
        ]);
        declared.push(op.operationId);
      }
    }
    expect(OPERATIONS.map((o) => o.operationId)).to.have.members(declared);
    expect(rest.length).to.be.greaterThan(60);
  });

  before(async () => {
    const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
    t = await startTestServer({ clock, env: { TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000' } });
    const s = t.server.services;
    const member = await createUser(t, 'member');
    const admin = await createUser(t, 'admin');
    const readOnly = await createUser(t, 'admin', { scopes: ['api:read'] });
    const revoked = await createUser(t, 'owner');
    await revoked.client.delete(`/api/v1/users/me/api-keys/${revoked.keyId}`);
    const expiring = await createUser(t, 'owner', { expiresAt: new Date(clock.now().getTime() + 1000) });
    clock.advance(2000);
    const memberSession = await s.sessions.create(member.id, null);
    const adminSession = await s.sessions.create(admin.id, null);
    const loggedOut = await s.sessions.create(admin.id, null);
    await s.sessions.revoke(loggedOut.sessionId);
    const forged = `${adminSession.token.slice(0, -4)}AAAA`;
    clients.set('no credential', {});
    clients.set('malformed key', { token: 'not-a-key' });
    clients.set('unknown key', { token: `tg_usr_live_${'Q'.repeat(43)}` });
    clients.set('revoked key', { token: revoked.key });
    clients.set('expired key', { token: expiring.key });
    clients.set('forged session cookie', { cookie: `access_token=${forged}` });
    clients.set('logged-out session cookie', { cookie: `access_token=${loggedOut.token}` });
    clients.set('member key', { token: member.key });
    clients.set('read-only admin key', { token: readOnly.key });
    clients.set('admin key', { token: admin.key });
    clients.set('owner key', { token: t.ownerKey });
    clients.set('member session cookie', { cookie: `access_token=${memberSession.token}` });
    clients.set('admin session cookie', { cookie: `access_token=${adminSession.token}` });
  });
  after(async () => {
    await t?.stop();
  });

  it('has rows for the three /mcp/gateway operations', () => {
    expect(gateway.map((o) => o.operationId)).to.have.members(['mcpGatewayPost', 'mcpGatewayGet', 'mcpGatewayDelete']);
  });

  for (const op of [...rest, ...gateway]) {
    it(`${op.method.toUpperCase()} ${op.path} (${op.operationId}, x-min-role ${op.minRole})`, async () => {
      const failures: string[] = [];
      for (const [state, cred] of clients) {
        const { path, body } = requestFor(op);
        const client = new ApiClient(t.url);
        // Logout ends the session it is called with; give it a fresh one so later rows still hold.
        let cookie = cred.cookie;
        if (op.operationId === 'logout' && VALID[state]?.via === 'cookie') {
          const userId = (await client.get('/api/v1/users/me', { cookie })).body.id;
          cookie = `access_token=${(await t.server.services.sessions.create(userId, null)).token}`;
        }
        const res: ApiResponse = await client.request(op.method.toUpperCase(), path, {
          ...(body !== undefined ? { body } : {}),
          token: cred.token ?? null,
          ...(cookie ? { cookie } : {}),
        });
        const want = expected(op, state, declaresCookie(op));
        const ok = want === 'pass' ? res.status !== 401 && res.status !== 403 : res.status === want;
        if (!ok) failures.push(`${state}: expected ${want}, got ${res.status} ${res.text.slice(0, 120)}`);
        if (res.status === 401) expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
        expect(res.status, `${state} must never get 500`).to.not.equal(500);
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
    });
  }
});
