import path from 'node:path/posix';
import { Ajv } from 'ajv';
import { BadGatewayError, BadRequestError, NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import { CatalogIndexSchema } from '../../generated/schemas.js';
import { OutboundRefusedError } from '../../lib/outbound-policy.js';
import { SecretBoxError } from '../../lib/secret-box.js';
import type { Logger } from '../../logger.js';
import { SKILL_LIMITS, skillTooLarge } from './skill-limits.js';
import { parseSkillMd, SkillFormatError } from './skill-md.js';

/**
 * External skill catalogs: GitHub repositories and `https://` catalog indexes, listed, searched
 * and fetched under the outbound-address policy, with bounds on size, count and time, and a cache.
 * Nearly 600 lines and one file on purpose: both catalog kinds share the fetch bounds, the cache
 * and the credential rule (a listing fetched with one token never outlives a registry change).
 */

type Schemas = components['schemas'];
export type CatalogSkillDto = Schemas['CatalogSkill'];
/** A catalog index document (`https://` catalogs): the contract's `CatalogIndex`. */
type CatalogIndex = Schemas['CatalogIndex'];

/** One skill fetched from a catalog, ready to be parsed and saved. */
export interface FetchedSkill {
  /** The catalog, normalised. */
  source: string;
  sourceUrl: string | null;
  skillMd: string;
  files: { path: string; content: string }[];
  version: string | null;
  tags: string[];
}

/** Bounds of catalog fetches (openapi.yaml, tag `skills`). */
export const CATALOG_BOUNDS = {
  requestTimeoutMs: 10_000,
  operationTimeoutMs: 30_000,
  documentBytes: 1024 * 1024,
  treeBytes: 8 * 1024 * 1024,
  redirects: 5,
  cacheTtlMs: 5 * 60_000,
  cacheEntries: 100,
  skillsPerCatalog: 500,
  concurrency: 4,
} as const;
export type CatalogBounds = { [K in keyof typeof CATALOG_BOUNDS]: number };

export interface SkillCatalogsDeps {
  /** The outbound-address policy every fetch (and every redirect hop) passes. */
  policy: { check(url: string | URL): Promise<void>; isAllowListed(url: string | URL): boolean };
  /** GitHub REST API base URL (`https://api.github.com`). */
  githubApiUrl: string;
  /**
   * Token for the GitHub API, when one is configured (general settings); never logged or echoed.
   * Asked once per catalog load or import, not per request.
   */
  githubToken: () => Promise<string | undefined> | string | undefined;
  logger: Logger;
  now?: () => number;
  /** Tighter bounds (tests). */
  bounds?: Partial<CatalogBounds>;
}

/** Where a catalog skill's files are, kept with a cached listing for imports. */
type SkillLocation =
  | { kind: 'github'; owner: string; repo: string; folder: string; files: { path: string; sha: string; size: number }[] }
  | { kind: 'index'; folderUrl: string; files: string[] };

interface CatalogData {
  source: string;
  items: CatalogSkillDto[];
  where: Map<string, SkillLocation>;
}

type Source =
  { kind: 'github'; owner: string; repo: string; prefix: string; normalised: string } | { kind: 'index'; url: URL; normalised: string };

/** Checks a fetched catalog index against the contract's `CatalogIndex` (generated from openapi.yaml). */
const validateIndex = new Ajv({ strict: false, allErrors: false }).compile<CatalogIndex>(CatalogIndexSchema);

/** File paths a skill may hold (as `SkillFileInput.path`). */
const FILE_PATH = /^(?!\/)(?!.*(^|\/)\.\.(\/|$))[A-Za-z0-9._/-]{1,1024}$/;
const GITHUB_SOURCE = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})((?:\/[^/?#\\]+)*)\/?$/;

/**
 * The GitHub API token from the general settings' registry credentials. The token belongs to the
 * registry at `registry_url`: it goes to the GitHub API only when that is unset (the built-in
 * default) or names the GitHub API's own origin, so a token meant for another registry never
 * reaches GitHub. A token that cannot be decrypted (master key replaced) is a 502 that says so.
 */
export async function registryGithubToken(
  registry: () => Promise<{ readonly url: string | null; readonly token: string | null }>,
  githubApiUrl: string,
): Promise<string | undefined> {
  let credentials;
  try {
    credentials = await registry();
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw new BadGatewayError(
      'The catalog could not be fetched: the registry token in the general settings cannot be decrypted (was the master key replaced?); set registry_token again',
    );
  }
  if (!credentials.token) return undefined;
  if (credentials.url !== null && new URL(credentials.url).origin !== new URL(githubApiUrl).origin) return undefined;
  return credentials.token;
}

/** A URL as it may appear in a message: no credentials, no query. */
function shown(url: URL | string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** Text of a file, or undefined when it is binary (not UTF-8, or has NUL bytes). */
function textOf(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const stringOr = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Runs `fn` over `items`, at most `limit` at a time, keeping order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * External skill catalogs: GitHub repositories read through GitHub's REST API (one folder per
 * skill, holding a SKILL.md) and `https://` catalog indexes (`CatalogIndex`). Every fetch and
 * every redirect hop passes the outbound-address policy; bodies and time are bounded; listings
 * are cached (bounded, a few minutes). A catalog that cannot be read is a BadGatewayError whose
 * message says why, without the token or a URL's query.
 */
export class SkillCatalogs {
  private readonly cache = new Map<string, { expires: number; data: Promise<CatalogData> }>();
  private readonly now: () => number;
  private readonly bounds: CatalogBounds;

  constructor(private readonly deps: SkillCatalogsDeps) {
    this.now = deps.now ?? Date.now;
    this.bounds = { ...CATALOG_BOUNDS, ...deps.bounds };
  }

  /** Forgets every cached listing (the registry credentials changed). */
  clearCache(): void {
    this.cache.clear();
  }

  /** The skills of a catalog, filtered by a case-insensitive substring of name or description. */
  async list(sourceText: string, search?: string): Promise<Schemas['CatalogListing']> {
    const data = await this.catalog(this.parseSource(sourceText));
    const needle = search?.toLowerCase();
    const items = needle
      ? data.items.filter((s) => s.name.toLowerCase().includes(needle) || s.description.toLowerCase().includes(needle))
      : data.items;
    return { items, source: data.source, total: items.length };
  }

  /** Fetches the SKILL.md and the text files of one catalog skill (import). */
  async fetchSkill(sourceText: string, name: string): Promise<FetchedSkill> {
    const source = this.parseSource(sourceText);
    const data = await this.catalog(source);
    const item = data.items.find((s) => s.name === name);
    const where = data.where.get(name);
    if (!item || !where) throw new NotFoundError(`The catalog ${data.source} has no skill named "${name}"`, 'catalog_skill_not_found');
    const deadline = AbortSignal.timeout(this.bounds.operationTimeoutMs);
    const fetched = where.kind === 'github' ? await this.fetchGithubSkill(where, deadline) : await this.fetchIndexSkill(where, deadline);
    return { source: data.source, sourceUrl: item.source_url, ...fetched, version: item.version, tags: item.tags };
  }

  // ------------------------------------------------------------------ sources and cache

  private parseSource(text: string): Source {
    const raw = text.trim();
    if (/^https?:\/\//i.test(raw)) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new BadRequestError('The catalog source is not a valid URL', 'invalid_catalog_source');
      }
      if (url.username || url.password) throw new BadRequestError('Credentials in a catalog URL are not allowed', 'invalid_catalog_source');
      if (url.protocol === 'http:' && !this.deps.policy.isAllowListed(url))
        throw new BadRequestError('A catalog index URL must use https (http only for allow-listed hosts)', 'invalid_catalog_source');
      url.hash = '';
      return { kind: 'index', url, normalised: url.toString() };
    }
    const m = GITHUB_SOURCE.exec(raw);
    const segments = (m?.[3] ?? '').split('/').filter(Boolean);
    if (!m || segments.some((s) => s === '.' || s === '..'))
      throw new BadRequestError(
        'The catalog source must be a GitHub repository (owner/repo[/path]) or an https:// index URL',
        'invalid_catalog_source',
      );
    const prefix = segments.join('/');
    return { kind: 'github', owner: m[1]!, repo: m[2]!, prefix, normalised: [m[1], m[2], ...segments].join('/') };
  }

  /** The cached listing of a catalog, loaded once per TTL (concurrent callers share one load). */
  private catalog(source: Source): Promise<CatalogData> {
    const key = source.normalised;
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.now()) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit.data;
    }
    const data = source.kind === 'github' ? this.loadGithub(source) : this.loadIndex(source);
    this.cache.set(key, { expires: this.now() + this.bounds.cacheTtlMs, data });
    data.catch(() => {
      if (this.cache.get(key)?.data === data) this.cache.delete(key);
    });
    while (this.cache.size > this.bounds.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    return data;
  }

  // ------------------------------------------------------------------ HTTP

  /**
   * GETs a URL under the policy, following at most 5 redirects, each hop checked again (and an
   * https → http hop only to an allow-listed host); the token goes only to the API's origin.
   * Returns the body, at most `maxBytes`.
   */
  private async get(
    url: URL,
    options: { maxBytes: number; accept: string; signal: AbortSignal; github?: { token: string | undefined }; tooLarge?: () => Error },
  ): Promise<{ status: number; body: Buffer; headers: Headers; url: URL }> {
    const apiOrigin = new URL(this.deps.githubApiUrl).origin;
    const token = options.github?.token;
    let current = url;
    for (let hop = 0; ; hop++) {
      try {
        await this.deps.policy.check(current);
      } catch (err) {
        if (err instanceof OutboundRefusedError) {
          if (hop === 0 && !options.github)
            throw new BadRequestError(`The catalog is refused by the outbound-address policy: ${err.message}`, 'outbound_refused');
          throw new BadGatewayError(
            `The catalog could not be fetched: ${shown(current)} is refused by the outbound-address policy (${err.message})`,
          );
        }
        throw err;
      }
      const headers: Record<string, string> = { accept: options.accept, 'user-agent': 'toolgate' };
      if (options.github) headers['x-github-api-version'] = '2022-11-28';
      if (token && current.origin === apiOrigin) headers.authorization = `Bearer ${token}`;
      let res: Response;
      try {
        res = await fetch(current, {
          headers,
          redirect: 'manual',
          signal: AbortSignal.any([options.signal, AbortSignal.timeout(this.bounds.requestTimeoutMs)]),
        });
      } catch (err) {
        const reason = (err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError' ? 'timed out' : 'connection failed';
        throw new BadGatewayError(`The catalog could not be fetched: ${shown(current)} ${reason}`);
      }
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel().catch(() => undefined);
        if (hop >= this.bounds.redirects)
          throw new BadGatewayError(`The catalog could not be fetched: more than ${this.bounds.redirects} redirects`);
        let next: URL;
        try {
          next = new URL(res.headers.get('location')!, current);
        } catch {
          throw new BadGatewayError('The catalog could not be fetched: a redirect has an invalid location');
        }
        if (next.protocol !== 'https:' && !(next.protocol === 'http:' && this.deps.policy.isAllowListed(next)))
          throw new BadGatewayError(
            `The catalog could not be fetched: a redirect leads to ${next.protocol}//${next.host}, which is not https`,
          );
        current = next;
        continue;
      }
      const body = await this.readCapped(res, options.maxBytes, current, options.tooLarge);
      return { status: res.status, body, headers: res.headers, url: current };
    }
  }

  private async readCapped(res: Response, maxBytes: number, url: URL, tooLarge?: () => Error): Promise<Buffer> {
    const fail = () =>
      tooLarge?.() ?? new BadGatewayError(`The catalog could not be fetched: ${shown(url)} is larger than ${maxBytes} bytes`);
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw fail();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = res.body?.getReader();
    if (!reader) return Buffer.alloc(0);
    let overflow = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          overflow = true;
          await reader.cancel().catch(() => undefined);
          break;
        }
        chunks.push(Buffer.from(value));
      }
    } catch {
      throw new BadGatewayError(`The catalog could not be fetched: ${shown(url)} timed out or broke off`);
    }
    if (overflow) throw fail();
    return Buffer.concat(chunks);
  }

  private json(res: { body: Buffer; url: URL }, what: string): unknown {
    try {
      return JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new BadGatewayError(`The catalog could not be fetched: ${what} at ${shown(res.url)} is not valid JSON`);
    }
  }

  // ------------------------------------------------------------------ GitHub

  /** The GitHub token for one catalog operation (load or import). */
  private async githubAuth(): Promise<{ token: string | undefined }> {
    return { token: (await this.deps.githubToken()) || undefined };
  }

  private async githubGet(
    apiPath: string,
    auth: { token: string | undefined },
    signal: AbortSignal,
    maxBytes: number = this.bounds.documentBytes,
    notFound?: string,
  ) {
    const base = this.deps.githubApiUrl.replace(/\/+$/, '');
    const res = await this.get(new URL(`${base}${apiPath}`), { maxBytes, accept: 'application/vnd.github+json', signal, github: auth });
    if (res.status === 404 && notFound) throw new NotFoundError(notFound, 'catalog_not_found');
    if (res.status === 403 || res.status === 429) {
      const limited = res.headers.get('x-ratelimit-remaining') === '0' || res.status === 429;
      throw new BadGatewayError(
        limited
          ? 'The catalog could not be fetched: the GitHub API rate limit is exhausted (a GitHub token raises it)'
          : `The catalog could not be fetched: the GitHub API refused the request (${res.status})`,
      );
    }
    if (res.status === 401)
      throw new BadGatewayError('The catalog could not be fetched: the GitHub API rejected the configured token (401)');
    if (res.status !== 200)
      throw new BadGatewayError(`The catalog could not be fetched: the GitHub API answered ${res.status} for ${apiPath.split('?')[0]}`);
    return this.json(res, 'the GitHub API answer');
  }

  private async loadGithub(source: Extract<Source, { kind: 'github' }>): Promise<CatalogData> {
    const signal = AbortSignal.timeout(this.bounds.operationTimeoutMs);
    const auth = await this.githubAuth();
    const { owner, repo, prefix } = source;
    const repoPath = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
    const info = (await this.githubGet(
      repoPath,
      auth,
      signal,
      this.bounds.documentBytes,
      `The GitHub repository ${owner}/${repo} does not exist`,
    )) as {
      default_branch?: unknown;
      html_url?: unknown;
    };
    const branch = typeof info.default_branch === 'string' ? info.default_branch : undefined;
    if (!branch) throw new BadGatewayError('The catalog could not be fetched: the GitHub API answer has no default_branch');
    const htmlUrl = typeof info.html_url === 'string' ? info.html_url : null;
    const tree = (await this.githubGet(
      `${repoPath}/git/trees/${encodeURIComponent(branch)}?recursive=1`,
      auth,
      signal,
      this.bounds.treeBytes,
    )) as {
      tree?: unknown;
      truncated?: unknown;
    };
    if (!Array.isArray(tree.tree)) throw new BadGatewayError('The catalog could not be fetched: the GitHub tree answer has no tree');
    if (tree.truncated === true)
      this.deps.logger.warn({ source: source.normalised }, 'GitHub tree truncated: only part of the catalog is listed');
    const blobs = (tree.tree as { path?: unknown; type?: unknown; sha?: unknown; size?: unknown }[])
      .filter((e) => e.type === 'blob' && typeof e.path === 'string' && typeof e.sha === 'string')
      .map((e) => ({ path: e.path as string, sha: e.sha as string, size: typeof e.size === 'number' ? e.size : 0 }));
    const under = (p: string) => !prefix || p === prefix || p.startsWith(`${prefix}/`);
    const folders = blobs
      .filter((b) => under(b.path) && path.basename(b.path) === 'SKILL.md')
      .map((b) => path.dirname(b.path))
      .map((d) => (d === '.' ? '' : d))
      .sort();
    // The shallowest SKILL.md wins: a skill's own sub-folders are part of it.
    const skillFolders = folders.filter((f) => !folders.some((other) => other !== f && (other === '' || f.startsWith(`${other}/`))));
    if (skillFolders.length > this.bounds.skillsPerCatalog)
      this.deps.logger.warn({ source: source.normalised, folders: skillFolders.length }, 'catalog has more skills than are listed');
    const listed = skillFolders.slice(0, this.bounds.skillsPerCatalog);
    const entries = await mapLimited(listed, this.bounds.concurrency, async (folder) => {
      const inside = (p: string) => (folder ? p.startsWith(`${folder}/`) : true);
      const files = blobs.filter((b) => inside(b.path)).map((b) => ({ ...b, path: folder ? b.path.slice(folder.length + 1) : b.path }));
      const skillMd = files.find((f) => f.path === 'SKILL.md')!;
      if (skillMd.size > this.bounds.documentBytes) return undefined;
      const text = textOf(await this.githubBlob(owner, repo, skillMd.sha, auth, this.bounds.documentBytes, signal));
      const item =
        text === undefined
          ? undefined
          : this.catalogSkill(text, source.normalised, htmlUrl ? `${htmlUrl}/tree/${branch}/${folder}`.replace(/\/$/, '') : null);
      if (!item) {
        this.deps.logger.debug({ source: source.normalised, folder }, 'catalog folder skipped: SKILL.md is not valid');
        return undefined;
      }
      item.files = files.map((f) => f.path).sort();
      return { item, where: { kind: 'github' as const, owner, repo, folder, files } };
    });
    return this.data(source.normalised, entries);
  }

  private async githubBlob(
    owner: string,
    repo: string,
    sha: string,
    auth: { token: string | undefined },
    maxBytes: number,
    signal: AbortSignal,
    tooLarge?: () => Error,
  ): Promise<Buffer> {
    const base = this.deps.githubApiUrl.replace(/\/+$/, '');
    // Base64 grows the content by a third; JSON adds a little.
    const res = await this.get(
      new URL(`${base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/git/blobs/${encodeURIComponent(sha)}`),
      {
        maxBytes: Math.ceil(maxBytes * 1.4) + 4096,
        accept: 'application/vnd.github+json',
        signal,
        github: auth,
        ...(tooLarge ? { tooLarge } : {}),
      },
    );
    if (res.status !== 200) throw new BadGatewayError(`The catalog could not be fetched: the GitHub API answered ${res.status} for a file`);
    const blob = this.json(res, 'the GitHub blob') as { content?: unknown; encoding?: unknown };
    if (typeof blob.content !== 'string') throw new BadGatewayError('The catalog could not be fetched: the GitHub blob has no content');
    const bytes = blob.encoding === 'base64' ? Buffer.from(blob.content, 'base64') : Buffer.from(blob.content, 'utf8');
    if (bytes.length > maxBytes) throw tooLarge?.() ?? new BadGatewayError('The catalog could not be fetched: a file is too large');
    return bytes;
  }

  private async fetchGithubSkill(where: Extract<SkillLocation, { kind: 'github' }>, signal: AbortSignal) {
    const others = where.files.filter((f) => f.path !== 'SKILL.md');
    if (others.length > SKILL_LIMITS.files) throw skillTooLarge(`The skill has ${others.length} files; the limit is ${SKILL_LIMITS.files}`);
    const big = where.files.find((f) => f.size > SKILL_LIMITS.importFileBytes);
    if (big) throw skillTooLarge(`The file ${big.path} is ${big.size} bytes; the limit is ${SKILL_LIMITS.importFileBytes}`);
    const total = where.files.reduce((n, f) => n + f.size, 0);
    if (total > SKILL_LIMITS.totalBytes * 4)
      throw skillTooLarge(`The skill's files are ${total} bytes; the limit is ${SKILL_LIMITS.totalBytes}`);
    const tooLarge = () => skillTooLarge(`A file of the skill is larger than ${SKILL_LIMITS.importFileBytes} bytes`);
    const auth = await this.githubAuth();
    const read = (sha: string) => this.githubBlob(where.owner, where.repo, sha, auth, SKILL_LIMITS.importFileBytes, signal, tooLarge);
    const skillMdFile = where.files.find((f) => f.path === 'SKILL.md')!;
    const skillMd = textOf(await read(skillMdFile.sha));
    if (skillMd === undefined)
      throw new BadRequestError('The catalog skill is not a valid Agent Skill: SKILL.md is not UTF-8 text', 'invalid_skill');
    const files = (
      await mapLimited(others, this.bounds.concurrency, async (f) => {
        if (!FILE_PATH.test(f.path)) return undefined;
        const text = textOf(await read(f.sha));
        return text === undefined ? undefined : { path: f.path, content: text };
      })
    ).filter((f): f is { path: string; content: string } => !!f);
    return { skillMd, files };
  }

  // ------------------------------------------------------------------ index

  private async loadIndex(source: Extract<Source, { kind: 'index' }>): Promise<CatalogData> {
    const signal = AbortSignal.timeout(this.bounds.operationTimeoutMs);
    const res = await this.get(source.url, { maxBytes: this.bounds.documentBytes, accept: 'application/json', signal });
    if (res.status === 404) throw new NotFoundError('The catalog index does not exist (404)', 'catalog_not_found');
    if (res.status !== 200) throw new BadGatewayError(`The catalog could not be fetched: ${shown(res.url)} answered ${res.status}`);
    const doc = this.json(res, 'the catalog index');
    if (!validateIndex(doc)) {
      const e = validateIndex.errors?.[0];
      throw new BadGatewayError(
        `The catalog could not be fetched: the index is not a valid CatalogIndex (${e?.instancePath || '/'} ${e?.message ?? ''})`,
      );
    }
    const seen = new Set<string>();
    const entries = doc.skills.map((s) => {
      if (seen.has(s.name)) return undefined;
      seen.add(s.name);
      let folder: URL;
      try {
        const ref = s.url ?? s.path ?? `${s.name}/`;
        folder = new URL(ref.endsWith('/') ? ref : `${ref}/`, res.url);
      } catch {
        return undefined;
      }
      if (folder.protocol !== 'https:' && folder.protocol !== 'http:') return undefined;
      const files = (s.files ?? []).filter((f) => FILE_PATH.test(f) && f !== 'SKILL.md');
      const item: CatalogSkillDto = {
        name: s.name,
        description: s.description,
        source: source.normalised,
        source_url: folder.toString(),
        author: s.author ?? null,
        version: s.version ?? null,
        tags: s.tags ?? [],
        license: s.license ?? null,
        files: ['SKILL.md', ...files].sort(),
        metadata: s.metadata ?? {},
      };
      return { item, where: { kind: 'index' as const, folderUrl: folder.toString(), files } };
    });
    return this.data(source.normalised, entries);
  }

  private async fetchIndexSkill(where: Extract<SkillLocation, { kind: 'index' }>, signal: AbortSignal) {
    if (where.files.length > SKILL_LIMITS.files)
      throw skillTooLarge(`The skill has ${where.files.length} files; the limit is ${SKILL_LIMITS.files}`);
    const tooLarge = () => skillTooLarge(`A file of the skill is larger than ${SKILL_LIMITS.importFileBytes} bytes`);
    const read = async (rel: string) => {
      const res = await this.get(new URL(rel, where.folderUrl), {
        maxBytes: SKILL_LIMITS.importFileBytes,
        accept: '*/*',
        signal,
        tooLarge,
      });
      if (res.status !== 200) throw new BadGatewayError(`The catalog could not be fetched: ${shown(res.url)} answered ${res.status}`);
      return res.body;
    };
    const skillMd = textOf(await read('SKILL.md'));
    if (skillMd === undefined)
      throw new BadRequestError('The catalog skill is not a valid Agent Skill: SKILL.md is not UTF-8 text', 'invalid_skill');
    const files = (
      await mapLimited(where.files, this.bounds.concurrency, async (rel) => {
        const text = textOf(await read(rel));
        return text === undefined ? undefined : { path: rel, content: text };
      })
    ).filter((f): f is { path: string; content: string } => !!f);
    return { skillMd, files };
  }

  // ------------------------------------------------------------------ helpers

  /** A catalog skill from its SKILL.md, or undefined when the SKILL.md is not valid. */
  private catalogSkill(skillMd: string, source: string, sourceUrl: string | null): CatalogSkillDto | undefined {
    let parsed;
    try {
      parsed = parseSkillMd(skillMd);
    } catch (err) {
      if (err instanceof SkillFormatError) return undefined;
      throw err;
    }
    const fm = parsed.frontmatter;
    const metadata =
      fm.metadata && typeof fm.metadata === 'object' && !Array.isArray(fm.metadata) ? (fm.metadata as Record<string, unknown>) : {};
    return {
      name: parsed.name,
      description: parsed.description,
      source,
      source_url: sourceUrl,
      author: stringOr(metadata.author),
      version: stringOr(metadata.version ?? fm.version),
      tags: stringList(metadata.tags ?? fm.tags),
      license: stringOr(fm.license),
      files: [],
      metadata,
    };
  }

  private data(source: string, entries: ({ item: CatalogSkillDto; where: SkillLocation } | undefined)[]): CatalogData {
    const items: CatalogSkillDto[] = [];
    const where = new Map<string, SkillLocation>();
    for (const e of entries) {
      if (!e || where.has(e.item.name)) continue;
      items.push(e.item);
      where.set(e.item.name, e.where);
    }
    items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { source, items, where };
  }
}
