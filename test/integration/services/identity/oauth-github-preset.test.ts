import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUser } from '../../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

/**
 * A stand-in for GitHub's OAuth app endpoints on loopback (authorize, access_token, /user,
 * /user/emails), speaking GitHub's wire format: a plain OAuth 2.0 provider without OpenID Connect.
 */
class FakeGitHub {
  private server = http.createServer((req, res) => void this.handle(req, res));
  private codes = new Map<string, { challenge: string }>();
  private tokens = new Set<string>();
  emails: { email: string; primary: boolean; verified: boolean }[] = [];
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/login/oauth/authorize') {
      const code = randomBytes(10).toString('hex');
      this.codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '' });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state')!);
      res.writeHead(302, { location: back.href });
      return void res.end();
    }
    if (url.pathname === '/login/oauth/access_token') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      const pending = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url');
      if (!pending || pending.challenge !== verifier) return json(200, { error: 'bad_verification_code' });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      this.tokens.add(token);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !this.tokens.has(token)) return json(401, { message: 'Bad credentials' });
    if (url.pathname === '/user') return json(200, { id: 4242, login: 'octo', name: 'Octo Cat', email: null });
    if (url.pathname === '/user/emails') return json(200, this.emails);
    json(404, { message: 'Not Found' });
  }
}

describe('OAuth login with the GitHub preset (GitHub wire format on loopback)', function () {
  this.timeout(60000);
  let t: TestServer;
  let gh: FakeGitHub;

  before(async () => {
    gh = await new FakeGitHub().start();
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*' } });
    const admin = await createUser(t, 'admin');
    const res = await admin.client.post('/api/v1/settings/auth/providers', {
      provider_type: 'github',
      display_name: 'GitHub',
      client_id: 'gh-app',
      client_secret: 'gh-app-secret',
      // GitHub Enterprise-style endpoint overrides, here pointing at the stand-in.
      config: {
        authorization_url: `${gh.url}/login/oauth/authorize`,
        token_url: `${gh.url}/login/oauth/access_token`,
        userinfo_url: `${gh.url}/user`,
      },
    });
    expect(res.status).to.equal(201);
    await admin.client.patch('/api/v1/settings/auth', { allowed_domains: ['octo.example'] });
  });
  after(async () => {
    await t?.stop();
    await gh?.stop();
  });

  async function login(): Promise<{ status: number; cookie?: string; body: any }> {
    const start = await t.anon.get('/api/v1/auth/login/github');
    expect(start.status).to.equal(302);
    const location = new URL(start.headers.get('location')!);
    expect(location.searchParams.get('scope')).to.equal('read:user user:email');
    expect(location.searchParams.has('nonce')).to.equal(false);
    const state = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('tg_oauth_state='))!
      .split(';')[0]!;
    const atGh = await fetch(location, { redirect: 'manual' });
    const cb = new URL(atGh.headers.get('location')!);
    const res = await t.anon.get(`${cb.pathname}${cb.search}`, { cookie: state });
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('access_token='))
      ?.split(';')[0];
    return { status: res.status, body: res.body, ...(cookie ? { cookie } : {}) };
  }

  it('signs in with the primary verified email from /user/emails and the numeric user id as subject', async () => {
    gh.emails = [
      { email: 'octo@users.noreply.github.com', primary: false, verified: true },
      { email: 'octo@octo.example', primary: true, verified: true },
    ];
    const result = await login();
    expect(result.status, JSON.stringify(result.body)).to.equal(302);
    const me = await t.anon.get('/api/v1/users/me', { cookie: result.cookie! });
    expect(me.body).to.include({ email: 'octo@octo.example', name: 'Octo Cat', auth_provider: 'github' });
    const row = await t.server.services.db.knex('users').where({ id: me.body.id }).first();
    expect(row.auth_subject).to.equal('4242');
  });

  it('answers 403 when GitHub shares no verified email', async () => {
    gh.emails = [{ email: 'other@octo.example', primary: true, verified: false }];
    const result = await login();
    expect(result.status).to.equal(403);
    expect(result.body.code).to.equal('email_not_verified');
  });
});
