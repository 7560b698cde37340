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
