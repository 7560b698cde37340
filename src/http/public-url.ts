import os from 'node:os';
import net from 'node:net';
import type { Config } from '../config.js';
import { isLoopbackName, isWildcardAddress, normaliseHost } from '../lib/host-names.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** `host[:port]` as RFC 9110 allows it in a Host header: a reg-name or IPv4, or a bracketed IPv6 literal. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]{2,45})\]|([a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9.])?))(?::(\d{1,5}))?$/i;

/** Every address of this machine's interfaces, normalised (what a wildcard bind answers on). */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(normaliseHost(a.address));
  return out;
}

/**
 * The externally visible base URL of this server (no trailing slash), used for every address a
 * response carries (bundle `mcp_endpoint`, invitation links, OAuth redirect URIs):
 *
 * 1. `TOOLGATE_PUBLIC_URL` when set (set it in production, behind a proxy or a name);
 * 2. else the request's Host, but only when it is a well-formed `host[:port]` naming the port the
 *    server listens on and a host it answers on: a loopback name while bound to loopback, an
 *    address of one of its interfaces while bound to every interface, else exactly the bound host;
 * 3. else the configured host and the bound port.
 *
 * A Host header is never reflected otherwise, so a caller cannot plant an address of their choice
 * in a response.
 */
export class PublicUrl {
  private host: string;
  private port: number;
  private readonly configured: string | undefined;

  constructor(config: Pick<Config, 'publicUrl' | 'host' | 'port'>) {
    this.configured = config.publicUrl?.replace(/\/+$/, '');
    this.host = config.host;
    this.port = config.port;
  }

  /** Records the address the server really listens on (the port is known only after listen when it was 0). */
  bound(host: string, port: number): void {
    this.host = host;
    this.port = port;
  }

  /** True when cookies must carry `Secure` (the public URL is https). */
  get secureCookies(): boolean {
    return this.configured?.startsWith('https:') ?? false;
  }

  /** The base URL for a request with these headers. */
  of(headers: Headers): string {
    if (this.configured) return this.configured;
    const raw = headers.host;
    const host = Array.isArray(raw) ? undefined : raw;
    if (host && this.accepts(host)) return `http://${host.toLowerCase()}`;
    const bound = isWildcardAddress(this.host) ? '127.0.0.1' : this.host;
    return `http://${net.isIPv6(bound) ? `[${bound}]` : bound}:${this.port}`;
  }

  private accepts(hostHeader: string): boolean {
    const m = HOST_HEADER.exec(hostHeader);
    if (!m) return false;
    const name = m[1] ?? m[2]!;
    if (m[1] && !net.isIPv6(m[1])) return false;
    const port = m[3] === undefined ? 80 : Number(m[3]);
    if (port !== this.port) return false;
    const host = normaliseHost(name);
    if (isLoopbackName(this.host)) return isLoopbackName(host);
    if (isWildcardAddress(this.host)) return isLoopbackName(host) || (net.isIP(host) !== 0 && interfaceAddresses().has(host));
    return host === normaliseHost(this.host);
  }
}
