import { lookup } from 'node:dns/promises';
import net, { BlockList } from 'node:net';
import { normaliseHost } from './host-names.js';

/** Raised when a URL may not be fetched under the outbound-address policy. */
export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** The refusal message: what is refused, and the allow-list entry that would open it. */
function refusal(host: string, port: number, verb: 'is' | 'resolves to'): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return `host ${host} (port ${port}) ${verb} a private, loopback or link-local address that is not allow-listed for that port (allow-list ${shown}:${port}, or ${shown}:* for every port)`;
}

/** Address ranges that are refused unless allow-listed: private, loopback, link-local, and the like. */
const PRIVATE = new BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net6, prefix, 'ipv6');

function family(address: string): 'ipv4' | 'ipv6' {
  return net.isIPv6(address) ? 'ipv6' : 'ipv4';
}

/** IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries. */
function unmap(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

/** The normalised host (lower case, IPv6 without brackets, no trailing dot) and port of an http(s) URL; refuses anything else. */
function fetchable(url: string | URL): { host: string; port: number } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundRefusedError('not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new OutboundRefusedError('only http and https URLs may be fetched');
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return { host: normaliseHost(parsed.hostname), port };
}

/** The ports an allow-list entry opens: every port (`:*`), or a set. */
type Ports = 'any' | ReadonlySet<number>;
/** An entry without a port opens the web ports only, so allowing a host never opens its databases or caches. */
const WEB_PORTS: Ports = new Set([80, 443]);

/** One parsed allow-list entry: a host name, or an address range, with the ports it opens. */
export type AllowlistEntry = { host: string; ports: Ports } | { address: string; prefix: number; family: 'ipv4' | 'ipv6'; ports: Ports };

/**
 * Parses an allow-list entry: `host`, `host:port`, `host:*`, an IP address or CIDR range with the
 * same optional `:port` / `:*` (IPv6 in brackets when it has a port: `[::1]:8080`). Without a port
 * the entry opens ports 80 and 443 only. Returns undefined for anything else.
 */
export function parseAllowlistEntry(raw: string): AllowlistEntry | undefined {
  let entry = raw.trim().toLowerCase();
  if (!entry) return undefined;
  let ports: Ports = WEB_PORTS;
  const bracketed = /^\[([^\]]+)\](\/\d{1,3})?(?::(\*|\d{1,5}))?$/.exec(entry);
  if (bracketed) {
    entry = bracketed[1]! + (bracketed[2] ?? '');
    if (bracketed[3] !== undefined) ports = portsOf(bracketed[3]) ?? new Set();
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    const colon = entry.indexOf(':');
    const p = portsOf(entry.slice(colon + 1));
    if (!p) return undefined;
    ports = p;
    entry = entry.slice(0, colon);
  }
  if (ports !== 'any' && ports.size === 0) return undefined;
  const [addr, bits, extra] = entry.split('/');
  if (!addr || extra !== undefined) return undefined;
  if (net.isIP(addr)) {
    const f = family(addr);
    const max = f === 'ipv4' ? 32 : 128;
    if (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max)) return undefined;
    return { address: addr, prefix: bits === undefined ? max : Number(bits), family: f, ports };
  }
  if (bits !== undefined || !HOSTNAME.test(addr)) return undefined;
  return { host: normaliseHost(addr), ports };
}

/** The canonical text of an entry (what settings store and show). */
export function formatAllowlistEntry(e: AllowlistEntry): string {
  const port = e.ports === 'any' ? ':*' : e.ports === WEB_PORTS ? '' : `:${[...e.ports][0]}`;
  if ('host' in e) return `${e.host}${port}`;
  const full = e.prefix === (e.family === 'ipv4' ? 32 : 128);
  const base = full ? e.address : `${e.address}/${e.prefix}`;
  return e.family === 'ipv6' && port ? `[${base}]${port}` : `${base}${port}`;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

function portsOf(text: string): Ports | undefined {
  if (text === '*') return 'any';
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? new Set([port]) : undefined;
}

function opens(ports: Ports, port: number): boolean {
  return ports === 'any' || ports.has(port);
}

/**
 * The outbound-address policy (SSRF guard) for URLs the server fetches on an admin's say-so:
 * OAuth discovery and token endpoints, upstreams, catalogs and AI endpoints. Only http and https;
 * the host is resolved and every address checked; private, loopback, link-local and other special
 * ranges are refused unless the host name or a CIDR range is on the allow-list
 * (`TOOLGATE_OUTBOUND_ALLOWLIST` or the general setting) with the port asked for: an entry opens
 * ports 80 and 443, or the port it names (`host:8080`), or every port (`host:*`). So allowing a
 * host for its web server never opens its database or cache. Redirects are not followed; a caller
 * that follows one checks the target again, port included.
 */
export class OutboundPolicy {
  private hosts = new Map<string, Ports[]>();
  private ranges: { list: BlockList; ports: Ports }[] = [];

  constructor(allowlist: readonly string[] = []) {
    this.setAllowlist(allowlist);
  }

  /** Replaces the allow-list (entries: host names, IP addresses or CIDR ranges, each with an optional `:port` or `:*`). */
  setAllowlist(entries: readonly string[]): void {
    const hosts = new Map<string, Ports[]>();
    const ranges: { list: BlockList; ports: Ports }[] = [];
    for (const raw of entries) {
      const entry = parseAllowlistEntry(raw);
      if (!entry) continue;
      if ('host' in entry) hosts.set(entry.host, [...(hosts.get(entry.host) ?? []), entry.ports]);
      else {
        const list = new BlockList();
        list.addSubnet(entry.address, entry.prefix, entry.family);
        ranges.push({ list, ports: entry.ports });
      }
    }
    this.hosts = hosts;
    this.ranges = ranges;
  }

  private hostAllowed(host: string, port: number): boolean {
    return this.hosts.get(host)?.some((p) => opens(p, port)) ?? false;
  }

  private addressAllowed(address: string, port: number): boolean {
    const f = family(address);
    return this.ranges.some((r) => opens(r.ports, port) && r.list.check(address, f));
  }

  /** Whether the URL's host (and port) is on the allow-list by name, or is a literal address in an allow-listed range. */
  isAllowListed(url: string | URL): boolean {
    const { host, port } = fetchable(url);
    if (this.hostAllowed(host, port)) return true;
    const literal = net.isIP(host) ? unmap(host) : undefined;
    return !!literal && this.addressAllowed(literal, port);
  }

  /**
   * The check that needs no DNS, for URLs an admin saves (resolution happens again at fetch
   * time): http(s) only, and a literal private address or `localhost` must be allow-listed.
   */
  checkStatic(url: string | URL): void {
    const { host, port } = fetchable(url);
    if (this.hostAllowed(host, port)) return;
    const literal = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : net.isIP(host) ? unmap(host) : undefined;
    if (literal && PRIVATE.check(literal, family(literal)) && !this.addressAllowed(literal, port)) {
      throw new OutboundRefusedError(refusal(host, port, 'is'));
    }
  }

  /** Throws OutboundRefusedError unless `url` may be fetched. */
  async check(url: string | URL): Promise<void> {
    const { host, port } = fetchable(url);
    if (this.hostAllowed(host, port)) return;
    await this.checkedAddresses(host, port);
  }

  /**
   * The addresses a connection to `host` on `port` may use: `host` resolved once, every address
   * checked. A caller that connects to one of these (not to the name again) cannot be turned to
   * another address by a DNS answer that changes in between. Throws OutboundRefusedError when the
   * host does not resolve or resolves to an address the policy refuses for that port.
   */
  async connectableAddresses(rawHost: string, port: number): Promise<string[]> {
    const host = normaliseHost(rawHost);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new OutboundRefusedError(`port ${port} is not a valid port`);
    return this.checkedAddresses(host, port);
  }

  private async checkedAddresses(host: string, port: number): Promise<string[]> {
    let addresses: string[];
    if (net.isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
      } catch {
        throw new OutboundRefusedError(`host ${host} could not be resolved`);
      }
    }
    const byName = this.hostAllowed(host, port);
    const unmapped = addresses.map(unmap);
    for (const a of unmapped) {
      if (!byName && PRIVATE.check(a, family(a)) && !this.addressAllowed(a, port))
        throw new OutboundRefusedError(refusal(host, port, 'resolves to'));
    }
    if (!unmapped.length) throw new OutboundRefusedError(`host ${host} could not be resolved`);
    return unmapped;
  }

  /** `fetch` under the policy: the URL is checked first and redirects are not followed. */
  readonly fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    await this.check(url);
    return fetch(url, { ...init, redirect: 'manual', signal: init?.signal ?? AbortSignal.timeout(10_000) });
  };
}
