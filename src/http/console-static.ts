import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Middleware } from 'koa';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Paths that belong to the API, the MCP endpoints, the probes and the metrics: the console never answers them. */
const RESERVED = /^\/(?:api|mcp)(?:\/|$)|^\/(?:health|ready|metrics)\/?$/;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|manifest\+json)|image\/svg\+xml)/;

/**
 * Headers of every console HTML page. The CSP allows only this origin's scripts, styles and API
 * calls (the build inlines nothing); no framing; no referrer, because the invitation page carries
 * its token in the query string.
 */
export const CONSOLE_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
});

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
  readonly cacheControl: string;
  readonly compressible: boolean;
  /** Compressed forms, made on first request and kept (the file set is fixed until restart). */
  readonly encoded: Map<'br' | 'gzip', Promise<Buffer | null>>;
}

export interface ConsoleStaticOptions {
  /** The built console (`web/dist`). */
  dir: string;
  /** Called once when the directory holds no build (the console then answers 503 with how to build it). */
  onMissing?: (dir: string) => void;
}

function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** Reads the build into memory: url path → asset. Empty when there is no build. */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(path.join(dir, 'index.html'))) return assets;
  for (const rel of listFiles(dir)) {
    const body = fs.readFileSync(path.join(dir, rel));
    const type = TYPES[path.extname(rel).toLowerCase()] ?? 'application/octet-stream';
    // Vite names everything under assets/ by content hash: such a URL never changes meaning.
    const immutable = rel.startsWith('assets/');
    assets.set(`/${rel}`, {
      body,
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      cacheControl: immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      compressible: COMPRESSIBLE.test(type) && body.length > 512,
      encoded: new Map(),
    });
  }
  return assets;
}

function compressed(asset: Asset, encoding: 'br' | 'gzip'): Promise<Buffer | null> {
  let p = asset.encoded.get(encoding);
  if (!p) {
    p = (
      encoding === 'br'
        ? brotli(asset.body, {
            params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length },
          })
        : gzip(asset.body, { level: 9 })
    ).then(
      (buf) => (buf.length < asset.body.length ? buf : null),
      () => null,
    );
    asset.encoded.set(encoding, p);
  }
  return p;
}

function preferredEncoding(acceptEncoding: string): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  if ((accepted.get('br') ?? 0) > 0) return 'br';
  if ((accepted.get('gzip') ?? 0) > 0) return 'gzip';
  return null;
}

/** True for a browser navigation to a console route (not a file, not an API call). */
function isPageRequest(urlPath: string, accept: string): boolean {
  const last = urlPath.slice(urlPath.lastIndexOf('/') + 1);
  return !last.includes('.') && accept.includes('text/html');
}

const NOT_BUILT = Buffer.from(
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Toolgate</title></head><body>' +
    '<h1>The Toolgate console is not built</h1><p>Run <code>npm run build:web</code> (or <code>npm install</code>) and restart the server. ' +
    'The REST API under <code>/api/v1</code> and the MCP endpoints work without it.</p></body></html>',
);

/**
 * Serves the web console (the Vite build in `dir`) from memory at `/`: hashed assets with a
 * one-year immutable cache, everything else revalidated by ETag (304), Brotli or gzip when the
 * client takes it, and `index.html` for browser navigations to console routes (the SPA
 * fallback). `/api`, `/mcp`, `/health`, `/ready` and `/metrics` are never answered here, nor any method but
 * GET and HEAD, so the console cannot shadow the API.
 */
export function consoleStatic(options: ConsoleStaticOptions): Middleware {
  const assets = loadAssets(options.dir);
  if (assets.size === 0) options.onMissing?.(options.dir);
  const index = assets.get('/index.html');

  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || RESERVED.test(ctx.path)) return next();
    let asset = ctx.path === '/' ? index : assets.get(ctx.path);
    const page = ctx.path === '/' || isPageRequest(ctx.path, ctx.get('accept'));
    if (!asset && page) asset = index;
    if (!asset) {
      if (!page || assets.size > 0) return next();
      ctx.status = 503;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = NOT_BUILT;
      return;
    }
    const isHtml = asset.type.startsWith('text/html');
    if (isHtml) ctx.set(CONSOLE_PAGE_HEADERS);
    ctx.set('Cache-Control', asset.cacheControl);
    ctx.set('ETag', asset.etag);
    ctx.vary('Accept-Encoding');
    ctx.type = asset.type;
    const ifNoneMatch = ctx.get('if-none-match');
    if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === asset.etag)) {
      ctx.status = 304;
      return;
    }
    let body = asset.body;
    const encoding = asset.compressible ? preferredEncoding(ctx.get('accept-encoding')) : null;
    if (encoding) {
      const encoded = await compressed(asset, encoding);
      if (encoded) {
        body = encoded;
        ctx.set('Content-Encoding', encoding);
      }
    }
    ctx.status = 200;
    // Koa leaves the body out of a HEAD answer and keeps its Content-Length.
    ctx.body = body;
  };
}
