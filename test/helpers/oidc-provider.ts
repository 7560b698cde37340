import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** The person who "signs in" at the provider on the next authorization request. */
export interface OidcUser {
  sub: string;
  email: string;
  email_verified?: boolean;
  name?: string;
  /** Group claims, put in the ID token as given. */
  groups?: string[] | string;
  roles?: string[];
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  method: string;
  nonce: string | undefined;
  user: OidcUser;
  used: boolean;
}

/**
 * A small but real OpenID Connect provider on loopback for the tests: discovery, authorization
 * endpoint (code flow; the signed-in person is whoever `nextUser` names), token endpoint
 * (client_secret_basic or _post; checks redirect_uri and the PKCE S256 verifier; single-use codes),
 * RS256-signed ID tokens with nonce, userinfo and JWKS. It speaks the wire protocol; nothing of
 * Toolgate is stubbed.
 */
export class TestOidcProvider {
  readonly clients = new Map<string, { secret: string; redirectUris: string[] }>();
  nextUser: OidcUser = { sub: 'user-1', email: 'user@example.com', email_verified: true, name: 'Test User' };
  /** Makes the token endpoint fail with a 500 (provider outage). */
  failTokenEndpoint = false;
  /** Every token request, as received (for assertions on PKCE and client authentication). */
  readonly tokenRequests: URLSearchParams[] = [];
  private readonly codes = new Map<string, PendingCode>();
  private readonly tokens = new Map<string, OidcUser>();
  private server = http.createServer((req, res) => void this.handle(req, res));
  private privateKey!: CryptoKey;
  private jwk!: JWK;
  issuer = '';

  async start(): Promise<this> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    this.privateKey = privateKey;
    this.jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get discoveryUrl(): string {
    return `${this.issuer}/.well-known/openid-configuration`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return this.json(res, 200, {
        issuer: this.issuer,
        authorization_endpoint: `${this.issuer}/authorize`,
        token_endpoint: `${this.issuer}/token`,
        userinfo_endpoint: `${this.issuer}/userinfo`,
        jwks_uri: `${this.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['openid', 'email', 'profile'],
      });
    }
    if (url.pathname === '/jwks') return this.json(res, 200, { keys: [this.jwk] });
    if (url.pathname === '/authorize') return this.authorize(url, res);
    if (url.pathname === '/token' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      return this.token(req, new URLSearchParams(Buffer.concat(chunks).toString('utf8')), res);
    }
    if (url.pathname === '/userinfo') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const user = token ? this.tokens.get(token) : undefined;
      if (!user) return this.json(res, 401, { error: 'invalid_token' });
      return this.json(res, 200, { ...user });
    }
    this.json(res, 404, { error: 'not_found' });
  }

  private authorize(url: URL, res: http.ServerResponse): void {
    const p = url.searchParams;
    const client = this.clients.get(p.get('client_id') ?? '');
    const redirectUri = p.get('redirect_uri') ?? '';
    if (!client || !client.redirectUris.includes(redirectUri)) return this.json(res, 400, { error: 'invalid_client_or_redirect_uri' });
    if (p.get('response_type') !== 'code' || p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) {
      return this.json(res, 400, { error: 'invalid_request', error_description: 'code flow with PKCE S256 required' });
    }
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, {
      clientId: p.get('client_id')!,
      redirectUri,
      challenge: p.get('code_challenge')!,
      method: 'S256',
      nonce: p.get('nonce') ?? undefined,
      user: { ...this.nextUser },
      used: false,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    if (p.get('state')) back.searchParams.set('state', p.get('state')!);
    res.writeHead(302, { location: back.href });
    res.end();
  }

  private async token(req: http.IncomingMessage, form: URLSearchParams, res: http.ServerResponse): Promise<void> {
    this.tokenRequests.push(form);
    if (this.failTokenEndpoint) return this.json(res, 500, { error: 'server_error' });
    let clientId = form.get('client_id') ?? '';
    let secret = form.get('client_secret') ?? '';
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (basic) {
      const [id, sec] = Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent);
      clientId = id ?? '';
      secret = sec ?? '';
    }
    const client = this.clients.get(clientId);
    if (!client || client.secret !== secret) return this.json(res, 401, { error: 'invalid_client' });
    const pending = this.codes.get(form.get('code') ?? '');
    if (form.get('grant_type') !== 'authorization_code' || !pending || pending.used || pending.clientId !== clientId) {
      return this.json(res, 400, { error: 'invalid_grant' });
    }
    pending.used = true;
    if (form.get('redirect_uri') !== pending.redirectUri)
      return this.json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri' });
    const verifier = form.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) {
      return this.json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    }
    const accessToken = randomBytes(24).toString('base64url');
    this.tokens.set(accessToken, pending.user);
    const idToken = await new SignJWT({
      ...pending.user,
      ...(pending.nonce ? { nonce: pending.nonce } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(this.issuer)
      .setAudience(clientId)
      .setSubject(pending.user.sub)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(this.privateKey);
    this.json(res, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 300,
      id_token: idToken,
      scope: 'openid email profile',
    });
  }
}
