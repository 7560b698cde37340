import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A repository the fake serves: its files by path (text or bytes). */
export interface FakeRepo {
  defaultBranch?: string;
  files: Record<string, string | Buffer>;
}

/** One request that reached the fake. */
export interface FakeRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

function gitSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** Base64 wrapped at 60 characters, as GitHub's blob API sends it. */
function wrappedBase64(content: Buffer): string {
  return (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n');
}

/**
 * A loopback server that speaks the parts of GitHub's REST API the skill catalogs use, in its
 * wire format: `GET /repos/{owner}/{repo}`, `GET /repos/{owner}/{repo}/git/trees/{ref}?recursive=1`
 * and `GET /repos/{owner}/{repo}/git/blobs/{sha}` (JSON, base64 blobs), 404 `{"message":"Not
 * Found"}`, and 403 with `x-ratelimit-remaining: 0` when rate limited. It records every request.
 */
export class FakeGithub {
  readonly requests: FakeRequest[] = [];
  readonly repos = new Map<string, FakeRepo>();
  /** When set, requests must carry `Authorization: Bearer <token>` (else 401). */
  requireToken: string | undefined;
  /** Answer every request 403 as GitHub does when the rate limit is spent. */
  rateLimited = false;
  /** Requests whose path starts with this never get an answer. */
  hangPrefix: string | undefined;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeGithub> {
    const holder: { fake?: FakeGithub } = {};
    const server = http.createServer((req, res) => holder.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.fake = new FakeGithub(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return holder.fake;
  }

  /** Requests whose path starts with `prefix`. */
  count(prefix: string): number {
    return this.requests.filter((r) => r.path.startsWith(prefix)).length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-media-type': 'github.v3', ...headers });
    res.end(JSON.stringify(body));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization });
    if (this.hangPrefix && url.pathname.startsWith(this.hangPrefix)) return;
    const notFound = () => this.send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    if (this.requireToken && req.headers.authorization !== `Bearer ${this.requireToken}`)
      return this.send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    if (this.rateLimited)
      return this.send(
        res,
        403,
        {
          message: 'API rate limit exceeded for 127.0.0.1.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
        },
        { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) },
      );
    const m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) return notFound();
    const full = `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`;
    const repo = this.repos.get(full);
    if (!repo) return notFound();
    const branch = repo.defaultBranch ?? 'main';
    const rest = m[3] ?? '';
    const files = Object.entries(repo.files).map(([path, content]) => {
      const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
      return { path, bytes, sha: gitSha(bytes) };
    });
    if (rest === '') {
      return this.send(res, 200, {
        id: 1,
        name: m[2],
        full_name: full,
        private: false,
        html_url: `https://github.com/${full}`,
        default_branch: branch,
      });
    }
    const tree = /^\/git\/trees\/([^/]+)$/.exec(rest);
    if (tree) {
      if (decodeURIComponent(tree[1]!) !== branch) return notFound();
      const dirs = new Set<string>();
      for (const f of files) {
        const parts = f.path.split('/');
        for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
      }
      const entries = [
        ...[...dirs].map((d) => ({
          path: d,
          mode: '040000',
          type: 'tree',
          sha: createHash('sha1').update(d).digest('hex'),
          url: `${this.url}/x`,
        })),
        ...files.map((f) => ({
          path: f.path,
          mode: '100644',
          type: 'blob',
          sha: f.sha,
          size: f.bytes.length,
          url: `${this.url}/repos/${full}/git/blobs/${f.sha}`,
        })),
      ].sort((a, b) => (a.path < b.path ? -1 : 1));
      return this.send(res, 200, { sha: createHash('sha1').update(full).digest('hex'), url: url.href, tree: entries, truncated: false });
    }
    const blob = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest);
    if (blob) {
      const f = files.find((x) => x.sha === blob[1]);
      if (!f) return notFound();
      return this.send(res, 200, {
        sha: f.sha,
        node_id: 'B_x',
        size: f.bytes.length,
        url: url.href,
        content: wrappedBase64(f.bytes),
        encoding: 'base64',
      });
    }
    return notFound();
  }
}

/** A route of the loopback catalog index server. */
export type StaticRoute =
  { status?: number; body: string | Buffer; type?: string } | { redirect: string; status?: number } | { hang: true };

/** A loopback HTTP server answering fixed routes (catalog indexes, skill files, redirects). */
export class StaticServer {
  readonly hits: string[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    readonly routes: Map<string, StaticRoute>,
  ) {}

  static async start(routes: Record<string, StaticRoute> = {}): Promise<StaticServer> {
    const holder: { me?: StaticServer } = {};
    const server = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      holder.me!.hits.push(path);
      const route = holder.me!.routes.get(path);
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found');
      }
      if ('hang' in route) return;
      if ('redirect' in route) {
        res.writeHead(route.status ?? 302, { location: route.redirect });
        return res.end();
      }
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'application/json' });
      res.end(route.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.me = new StaticServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, new Map(Object.entries(routes)));
    return holder.me;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
