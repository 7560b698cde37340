import type { Config } from '../config.js';

/**
 * The externally visible base URL (no trailing slash): `TOOLGATE_PUBLIC_URL` when set, else the
 * request's Host over http. Set TOOLGATE_PUBLIC_URL in production: OAuth redirect URIs and
 * invitation links are built from it, and cookies are marked Secure when it is https.
 */
export function publicBaseUrl(config: Pick<Config, 'publicUrl'>, headers: Readonly<Record<string, string | string[] | undefined>>): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/$/, '');
  const host = typeof headers.host === 'string' && /^[A-Za-z0-9.:[\]-]{1,255}$/.test(headers.host) ? headers.host : '127.0.0.1';
  return `http://${host}`;
}

/** True when cookies must carry `Secure` (the public URL is https). */
export function secureCookies(config: Pick<Config, 'publicUrl'>): boolean {
  return config.publicUrl?.startsWith('https:') ?? false;
}

/** A `Set-Cookie` value. An empty value with maxAgeSeconds 0 clears the cookie. */
export function setCookie(
  name: string,
  value: string,
  options: { maxAgeSeconds: number; path?: string; secure: boolean; httpOnly?: boolean },
): string {
  const parts = [`${name}=${value}`, `Path=${options.path ?? '/'}`, `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`];
  parts.push(`Expires=${new Date(options.maxAgeSeconds > 0 ? Date.now() + options.maxAgeSeconds * 1000 : 0).toUTCString()}`);
  if (options.httpOnly !== false) parts.push('HttpOnly');
  parts.push('SameSite=Lax');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Reads one cookie from the Cookie header. */
export function readCookie(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const raw = headers.cookie;
  const header = Array.isArray(raw) ? raw.join('; ') : (raw ?? '');
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
