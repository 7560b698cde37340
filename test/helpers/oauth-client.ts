/**
 * The client side of an MCP OAuth flow for tests: an in-memory OAuthClientProvider for the MCP
 * SDK's `auth()`, a PKCE pair, and the person's consent given through the REST API (the browser
 * test drives the console page instead). Every token and code it sees is registered as a secret,
 * so the leak check fails if one reaches a log line.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, mkdtempSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ApiClient } from './api-client.js';
import { seedSecret } from './secrets.js';

/** A loopback redirect URI a native client would register. */
export const REDIRECT_URI = 'http://127.0.0.1:33418/callback';

/** An OAuthClientProvider keeping everything in memory; `redirectToAuthorization` records the URL. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly expectedState = randomBytes(16).toString('base64url');

  constructor(private readonly options: { clientMetadataUrl?: string; redirectUri?: string; name?: string } = {}) {}

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }
  get redirectUrl(): string {
    return this.options.redirectUri ?? REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.name ?? 'Test MCP client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return this.expectedState;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    seedSecret(tokens.access_token);
    if (tokens.refresh_token) seedSecret(tokens.refresh_token);
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Follows `/oauth/authorize` to the consent page and answers the consent request's id. */
export async function consentRequestId(authorizationUrl: URL | string): Promise<string> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const id = new URL(location).searchParams.get('request');
  if (!id) throw new Error(`authorize did not send the browser to the consent page: ${location}`);
  return id;
}

/** The person approves (or denies) through the REST API with their API key; answers the redirect back to the client. */
export async function decide(client: ApiClient, requestId: string, approve = true): Promise<URL> {
  const shown = await client.get(`/api/v1/oauth/authorizations/${requestId}`);
  if (shown.status !== 200) throw new Error(`consent request answered ${shown.status}: ${shown.text}`);
  const res = await client.post(`/api/v1/oauth/authorizations/${requestId}/decision`, { approve });
  if (res.status !== 200) throw new Error(`decision answered ${res.status}: ${res.text}`);
  const back = new URL((res.body as { redirect_to: string }).redirect_to);
  const code = back.searchParams.get('code');
  if (code) seedSecret(code);
  return back;
}

/** Runs `/oauth/authorize` with the given parameters and approves it; answers the redirect back. */
export async function authorizeAndApprove(base: string, client: ApiClient, params: Record<string, string>): Promise<URL> {
  const url = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return decide(client, await consentRequestId(url));
}

/** Posts a form to the token endpoint. */
export async function tokenRequest(base: string, form: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json()) as Record<string, any>;
  if (body.access_token) seedSecret(body.access_token);
  if (body.refresh_token) seedSecret(body.refresh_token);
  return { status: res.status, body };
}

/** Registers a client by DCR; answers its client id. */
export async function registerClient(base: string, metadata: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Raw client', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: res.status, body: await res.json() };
}

/** A loopback HTTPS server with a self-signed certificate for `localhost` (serves client metadata documents). */
export interface HttpsFixture {
  readonly url: string;
  readonly ca: Buffer;
  /** Documents by path. */
  readonly documents: Map<string, unknown>;
  fetches: number;
  close(): Promise<void>;
}

export async function startHttpsFixture(): Promise<HttpsFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cimd-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'));
  const documents = new Map<string, unknown>();
  const fixture = {
    url: '',
    ca: cert,
    documents,
    fetches: 0,
    close: async () => {},
  };
  const server: HttpsServer = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    fixture.fetches += 1;
    const doc = documents.get(req.url ?? '');
    if (doc === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fixture.url = `https://localhost:${(server.address() as AddressInfo).port}`;
  fixture.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fixture;
}

export { ApiClient };
