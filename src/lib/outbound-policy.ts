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

/** The normalised host of an http(s) URL (lower case, IPv6 without brackets, no trailing dot); refuses anything else. */
function fetchableHost(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundRefusedError('not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new OutboundRefusedError('only http and https URLs may be fetched');
  return normaliseHost(parsed.hostname);
}

/**
 * The outbound-address policy (SSRF guard) for URLs the server fetches on an admin's say-so:
 * OAuth discovery and token endpoints, and later upstreams, catalogs and AI endpoints. Only http
 * and https; the host is resolved and every address checked; private, loopback, link-local and
 * other special ranges are refused unless the host name or a CIDR range is on the allow-list
 * (`TOOLGATE_OUTBOUND_ALLOWLIST`, plus entries added at run time). Redirects are not followed.
 */
export class OutboundPolicy {
  private hosts = new Set<string>();
  private ranges = new BlockList();

  constructor(allowlist: readonly string[] = []) {
    this.setAllowlist(allowlist);
  }

  /** Replaces the allow-list (entries: host names, IP addresses or CIDR ranges). */
  setAllowlist(entries: readonly string[]): void {
    const hosts = new Set<string>();
    const ranges = new BlockList();
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      const [addr, bits] = entry.split('/');
      if (addr && net.isIP(addr)) {
        const f = family(addr);
        ranges.addSubnet(addr, bits ? Number(bits) : f === 'ipv4' ? 32 : 128, f);
      } else hosts.add(normaliseHost(entry));
    }
    this.hosts = hosts;
    this.ranges = ranges;
  }

  /** Whether the URL's host is on the allow-list by name, or is a literal address in an allow-listed range. */
  isAllowListed(url: string | URL): boolean {
    const host = fetchableHost(url);
    if (this.hosts.has(host)) return true;
    const literal = net.isIP(host) ? unmap(host) : undefined;
    return !!literal && this.ranges.check(literal, family(literal));
  }

  /**
   * The check that needs no DNS, for URLs an admin saves (resolution happens again at fetch
   * time): http(s) only, and a literal private address or `localhost` must be allow-listed.
   */
  checkStatic(url: string | URL): void {
    const host = fetchableHost(url);
    if (this.hosts.has(host)) return;
    const literal = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : net.isIP(host) ? unmap(host) : undefined;
    if (literal && PRIVATE.check(literal, family(literal)) && !this.ranges.check(literal, family(literal))) {
      throw new OutboundRefusedError(`host ${host} is a private, loopback or link-local address that is not allow-listed`);
    }
  }

  /** Throws OutboundRefusedError unless `url` may be fetched. */
  async check(url: string | URL): Promise<void> {
    const host = fetchableHost(url);
    if (this.hosts.has(host)) return;
    let addresses: string[];
    if (net.isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
      } catch {
        throw new OutboundRefusedError(`host ${host} could not be resolved`);
      }
    }
    for (const a of addresses.map(unmap)) {
      const f = family(a);
      if (PRIVATE.check(a, f) && !this.ranges.check(a, f)) {
        throw new OutboundRefusedError(`host ${host} resolves to a private, loopback or link-local address that is not allow-listed`);
      }
    }
  }

  /** `fetch` under the policy: the URL is checked first and redirects are not followed. */
  readonly fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    await this.check(url);
    return fetch(url, { ...init, redirect: 'manual', signal: init?.signal ?? AbortSignal.timeout(10_000) });
  };
}
