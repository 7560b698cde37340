/**
 * The Origin/Host guard against DNS rebinding: the first check of every MCP request, before the
 * route resolves it (403 "Forbidden origin" when it fails).
 */
import type { IncomingMessage } from 'node:http';
import type { Config } from '../../config.js';
import { isLoopbackName } from '../../lib/host-names.js';
import { header } from './responses.js';

/**
 * DNS-rebinding protection. An Origin passes when absent, when it is the public URL's origin or
 * a configured one, or when it names a loopback host. "Same host as the Host header" is not
 * enough: a rebound name (evil.example → 127.0.0.1) sends matching Host and Origin. While the
 * server listens on loopback only, the Host header itself must also name loopback (or the
 * public URL's host).
 */
export class OriginGuard {
  private allowedOrigins = new Set<string>();
  private allowedHosts = new Set<string>();
  private readonly publicOrigin: string | undefined;
  private readonly publicHost: string | undefined;
  /** True when the server listens on a loopback address only (the default). */
  private readonly loopbackOnly: boolean;

  constructor(config: Pick<Config, 'allowedOrigins' | 'publicUrl' | 'host'>) {
    this.setAllowedOrigins(config.allowedOrigins);
    this.publicOrigin = config.publicUrl ? new URL(config.publicUrl).origin : undefined;
    this.publicHost = config.publicUrl ? new URL(config.publicUrl).hostname.toLowerCase() : undefined;
    this.loopbackOnly = isLoopbackName(config.host);
  }

  /** Replaces the browser origins allowed besides loopback and the public URL (general settings). */
  setAllowedOrigins(origins: readonly string[]): void {
    this.allowedOrigins = new Set(origins.map((x) => new URL(x).origin));
    this.allowedHosts = new Set(origins.map((x) => new URL(x).hostname.toLowerCase()));
  }

  /** True when the request's Origin (and, on loopback, its Host) may reach the MCP endpoints. */
  allows(req: IncomingMessage): boolean {
    if (this.loopbackOnly) {
      const host = header(req, 'host');
      if (host !== undefined && !this.trustedHost(hostnameOf(host))) return false;
    }
    const origin = header(req, 'origin');
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.origin === 'null') return false;
    if (this.allowedOrigins.has(url.origin) || url.origin === this.publicOrigin) return true;
    return isLoopbackName(url.hostname);
  }

  private trustedHost(hostname: string): boolean {
    return isLoopbackName(hostname) || hostname === this.publicHost || this.allowedHosts.has(hostname);
  }
}

/** The hostname part of a Host header (`name`, `name:port`, `[v6]:port`), lower-cased. */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon > 0 ? h.slice(0, colon) : h;
}
