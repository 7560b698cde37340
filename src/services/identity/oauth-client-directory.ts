/**
 * Who an OAuth `client_id` is. Three kinds of client reach Toolgate's authorization server:
 * - a Client ID Metadata Document (CIMD): the `client_id` is an https URL whose document describes
 *   the client. It is fetched under the outbound-address policy (SSRF guard, no redirects), must be
 *   small JSON whose `client_id` equals the URL and whose redirect URIs are acceptable, and is kept
 *   in a bounded in-memory cache for a while (the response's `Cache-Control: max-age` within
 *   limits), failures included, so a client id cannot make Toolgate fetch on every request;
 * - a dynamically registered client (RFC 7591) and an admin's pre-registered client: rows of
 *   `oauth_clients`, read on every use (a deleted client is unknown at once, on every instance).
 */
import type { DbOAuthClientRow, OAuthStore } from '../../stores/oauth-store.js';
import { redirectUriProblem } from '../../domain/oauth.js';
import type { Clock } from '../../lib/clock.js';

/** A client as the authorization server sees it. */
export interface OAuthClient {
  readonly clientId: string;
  readonly kind: 'metadata_document' | 'dynamic' | 'admin';
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly clientUri: string | null;
  /** False while a dynamically registered client awaits an admin's approval. */
  readonly active: boolean;
}

/** Why a client id resolved to no usable client (`invalid_client`). */
export class UnknownClientError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownClientError';
  }
}

const MAX_DOCUMENT_BYTES = 16 * 1024;
const MAX_CACHED = 500;
const DEFAULT_TTL_MS = 5 * 60_000;
const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 24 * 60 * 60_000;
const FAILURE_TTL_MS = 60_000;
const FETCH_TIMEOUT_MS = 5_000;
const MAX_REDIRECT_URIS = 20;
const MAX_URL_LENGTH = 2048;

type CacheEntry = { client: OAuthClient; until: number } | { error: string; until: number };

/** True when a client id is URL-shaped, so it names a metadata document. */
export function isMetadataDocumentId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

function fromRow(row: DbOAuthClientRow): OAuthClient {
  return {
    clientId: row.client_id,
    kind: row.source,
    name: row.name,
    redirectUris: row.redirect_uris,
    clientUri: row.client_uri,
    active: row.status === 'active',
  };
}

function maxAge(cacheControl: string | null): number {
  const m = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '');
  if (/no-store|no-cache/i.test(cacheControl ?? '')) return MIN_TTL_MS;
  if (!m) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Number(m[1]) * 1000));
}

/** Validates a fetched metadata document against its URL; returns the client or throws with the reason. */
export function clientFromDocument(url: string, doc: unknown): OAuthClient {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new UnknownClientError('the client metadata document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) throw new UnknownClientError('the client metadata document names a different client_id');
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every((u) => typeof u === 'string'))
    throw new UnknownClientError('the client metadata document has no valid redirect_uris');
  for (const u of uris as string[]) {
    const problem = u.length > MAX_URL_LENGTH ? 'is too long' : redirectUriProblem(u);
    if (problem) throw new UnknownClientError(`the client metadata document's redirect URI ${problem}`);
  }
  const method = d.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw new UnknownClientError('only public clients (token_endpoint_auth_method "none") may use a metadata document');
  const name = typeof d.client_name === 'string' && d.client_name.trim() ? d.client_name.trim().slice(0, 200) : new URL(url).host;
  const clientUri = typeof d.client_uri === 'string' && d.client_uri.startsWith('https://') ? d.client_uri.slice(0, MAX_URL_LENGTH) : null;
  return { clientId: url, kind: 'metadata_document', name, redirectUris: uris as string[], clientUri, active: true };
}

/** Resolves client ids to clients (see the file comment). */
export class OAuthClientDirectory {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CacheEntry>>();

  constructor(
    private readonly deps: {
      store: () => OAuthStore;
      clock: Clock;
      /** `fetch` under the outbound-address policy (no redirects followed). */
      fetch: (url: string, init?: RequestInit) => Promise<Response>;
    },
  ) {}

  /** The client a client id names; throws UnknownClientError when there is none (or its document is bad). */
  async resolve(clientId: string): Promise<OAuthClient> {
    if (!clientId || clientId.length > MAX_URL_LENGTH) throw new UnknownClientError('unknown client');
    if (isMetadataDocumentId(clientId)) return this.fromDocument(clientId);
    const row = await this.deps.store().findClient(clientId);
    if (!row) throw new UnknownClientError('unknown client');
    return fromRow(row);
  }

  /** Forgets a cached metadata document (tests, and an admin asking for a re-fetch). */
  forget(clientId: string): void {
    this.cache.delete(clientId);
  }

  private async fromDocument(url: string): Promise<OAuthClient> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UnknownClientError('the client_id is not a valid URL');
    }
    // The draft requires a path, and no fragment, credentials or dot segments (checked on the id as sent: URL parsing removes them).
    if (parsed.pathname === '/' || parsed.hash || parsed.username || parsed.password || /\/\.\.?(?:[/?#]|$)/.test(url))
      throw new UnknownClientError('the client_id URL is not a valid client metadata document URL');
    const now = this.deps.clock.now().getTime();
    const hit = this.cache.get(url);
    const entry = hit && hit.until > now ? hit : await this.load(url);
    if ('error' in entry) throw new UnknownClientError(entry.error);
    return entry.client;
  }

  private load(url: string): Promise<CacheEntry> {
    let pending = this.loading.get(url);
    if (pending) return pending;
    pending = this.fetchDocument(url)
      .then(
        ({ client, ttl }): CacheEntry => ({ client, until: this.deps.clock.now().getTime() + ttl }),
        (err: unknown): CacheEntry => ({
          error: err instanceof UnknownClientError ? err.message : 'the client metadata document could not be fetched',
          until: this.deps.clock.now().getTime() + FAILURE_TTL_MS,
        }),
      )
      .then((entry) => {
        if (this.cache.size >= MAX_CACHED && !this.cache.has(url)) {
          const oldest = this.cache.keys().next().value;
          if (oldest !== undefined) this.cache.delete(oldest);
        }
        this.cache.set(url, entry);
        return entry;
      })
      .finally(() => this.loading.delete(url));
    this.loading.set(url, pending);
    return pending;
  }

  private async fetchDocument(url: string): Promise<{ client: OAuthClient; ttl: number }> {
    const res = await this.deps.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      throw new UnknownClientError(`the client metadata document answered HTTP ${res.status}`);
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > MAX_DOCUMENT_BYTES) {
      await res.body?.cancel().catch(() => undefined);
      throw new UnknownClientError('the client metadata document is too large');
    }
    const text = await readLimited(res, MAX_DOCUMENT_BYTES);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new UnknownClientError('the client metadata document is not JSON');
    }
    return { client: clientFromDocument(url, doc), ttl: maxAge(res.headers.get('cache-control')) };
  }
}

/** The body as text, refusing more than `limit` bytes. */
async function readLimited(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new UnknownClientError('the client metadata document is too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
