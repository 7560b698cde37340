import net from 'node:net';

/**
 * A host name as compared everywhere: lower case, IPv6 without brackets, and without the trailing
 * dot of a fully qualified name (`localhost.` is `localhost`).
 */
export function normaliseHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/(?<=[^.])\.$/, '');
}

/** True for names and literals that always mean this machine: localhost (and *.localhost), 127.0.0.0/8, ::1. */
export function isLoopbackName(hostname: string): boolean {
  const h = normaliseHost(hostname);
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped ? mapped[1]!.startsWith('127.') : false;
}

/** True for the wildcard addresses a server binds to listen on every interface. */
export function isWildcardAddress(host: string): boolean {
  const h = normaliseHost(host);
  return h === '0.0.0.0' || h === '::' || h === '';
}
