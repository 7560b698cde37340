import type { IncomingHttpHeaders } from 'node:http';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery check for cookie-authenticated requests (the web console). SameSite=Lax
 * already keeps the cookie off cross-site POSTs in current browsers; this is the second line for
 * browsers and set-ups where it does not (older browsers, a sibling subdomain counting as "same
 * site"). A state-changing request passes when the browser says it comes from this origin: its
 * `Origin` is the request's own origin (scheme and Host), the public URL's origin, or one of the
 * allowed origins of the general settings. Without `Origin`, `Sec-Fetch-Site` decides; a request
 * with neither (not a browser: curl, scripts) passes, since forgery needs a browser.
 */
export function isCrossSiteWrite(
  method: string,
  headers: IncomingHttpHeaders,
  ownOrigin: string,
  trustedOrigins: ReadonlySet<string>,
): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  const origin = typeof headers.origin === 'string' ? headers.origin : undefined;
  if (origin === undefined) {
    const site = headers['sec-fetch-site'];
    return site === 'cross-site' || site === 'same-site';
  }
  let normalised: string;
  try {
    normalised = new URL(origin).origin;
  } catch {
    return true;
  }
  return normalised === 'null' || (normalised !== ownOrigin && !trustedOrigins.has(normalised));
}
