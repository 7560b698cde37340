import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.js';
import { OutboundPolicy, OutboundRefusedError } from '../lib/outbound-policy.js';

/**
 * The only way out of a sandbox's private network namespace: an HTTP proxy (CONNECT for https and
 * anything else over TCP, absolute-form requests for plain http) on a unix socket that is bound
 * into one sandbox. Each socket belongs to one sandboxed server, so the proxy knows whose approved
 * list applies without any credential. A destination passes when
 *
 * 1. its host and port are on the server's approved list (`host` opens 80 and 443, `host:port`
 *    that port, `host:*` every port: the outbound allow-list's rules), and
 * 2. the outbound-address policy allows it: the host is resolved once here and every address
 *    checked, for that port, and the connection goes to a checked address (a DNS answer that
 *    changes in between cannot turn it to loopback or a private network).
 *
 * A refusal is answered 403 with the reason and logged with the server, host and port only (the
 * request's path, headers and body are never logged).
 */
export interface EgressSocket {
  /** The socket's path on the host (bind it into the sandbox). */
  readonly path: string;
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  /** The outbound-address policy of the whole gateway (loopback and private ranges refused unless allow-listed). */
  policy: OutboundPolicy;
  logger: Logger;
  /** Longest a connection to a destination may take to open. Default 10 s. */
  connectTimeoutMs?: number;
}

/** Hop-by-hop and proxy headers that never travel on to the destination. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Opens the egress sockets of sandboxed servers, one per server. */
export class EgressProxy {
  private dir: string | undefined;
  private readonly open = new Set<EgressSocket>();

  constructor(private readonly options: EgressProxyOptions) {}

  /**
   * A new socket for `name` (a server id) whose destinations must be on `approved()` (read at each
   * connection, so a new approval applies to the next one).
   */
  async listen(name: string, approved: () => readonly string[]): Promise<EgressSocket> {
    // Unix socket paths are short (108 bytes): a private folder in the system's temp dir, not the data directory.
    this.dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-egress-'));
    fs.chmodSync(this.dir, 0o700);
    const socketPath = path.join(this.dir, `${name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}.sock`);
    fs.rmSync(socketPath, { force: true });
    const server = http.createServer((req, res) => void this.forward(name, approved, req, res));
    server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(name, approved, req, socket, head));
    server.on('clientError', (_err, socket) => socket.destroy());
    const sockets = new Set<Duplex>();
    server.on('connection', (s: net.Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    // The sandbox runs as its own uid: it must be able to connect. The folder above is 0700, so
    // only the sandbox the socket is bound into reaches it.
    fs.chmodSync(socketPath, 0o666);
    const egress: EgressSocket = {
      path: socketPath,
      close: async () => {
        this.open.delete(egress);
        for (const s of sockets) s.destroy();
        await new Promise<void>((r) => server.close(() => r()));
        fs.rmSync(socketPath, { force: true });
      },
    };
    this.open.add(egress);
    return egress;
  }

  /** Closes every socket. */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.close()));
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  /** The address to connect to for `host:port`, or the reason it is refused. */
  private async destination(
    name: string,
    approved: () => readonly string[],
    host: string,
    port: number,
  ): Promise<{ address: string } | { refused: string }> {
    const shown = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    let why: string;
    try {
      if (!new OutboundPolicy(approved()).isAllowListed(`http://${shown}/`)) why = `${shown} is not on this server's approved network list`;
      else {
        const [address] = await this.options.policy.connectableAddresses(host, port);
        return { address: address! };
      }
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      why = err.message;
    }
    this.options.logger.warn({ serverId: name, host, port }, `sandbox egress refused: ${why}`);
    return { refused: why };
  }

  private async tunnel(
    name: string,
    approved: () => readonly string[],
    req: http.IncomingMessage,
    client: Duplex,
    head: Buffer,
  ): Promise<void> {
    client.on('error', () => undefined);
    const target = parseAuthority(req.url ?? '');
    if (!target) return void client.end(statusLine(400, 'CONNECT needs host:port'));
    const found = await this.destination(name, approved, target.host, target.port).catch(() => ({ refused: 'internal error' }));
    if ('refused' in found) return void client.end(statusLine(403, `Refused by Toolgate's egress policy: ${found.refused}`));
    const upstream = net.connect({ host: found.address, port: target.port });
    upstream.setTimeout(this.options.connectTimeoutMs ?? 10_000, () => upstream.destroy(new Error('connect timeout')));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      if (!connected) client.end(statusLine(502, `Could not reach ${target.host}:${target.port}: ${err.message}`));
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  private async forward(
    name: string,
    approved: () => readonly string[],
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('A proxy request needs an absolute http:// URL');
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Only http:// is forwarded; use CONNECT for https');
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = url.port ? Number(url.port) : 80;
    const found = await this.destination(name, approved, host, port).catch(() => ({ refused: 'internal error' }));
    if ('refused' in found) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`Refused by Toolgate's egress policy: ${found.refused}`);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_HEADERS.has(k) && v !== undefined) headers[k] = v;
    headers.host = url.host;
    const out = http.request({
      host: found.address,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
    });
    out.setTimeout(this.options.connectTimeoutMs ?? 10_000, () => out.destroy(new Error('timeout')));
    out.on('response', (answer) => {
      out.setTimeout(0);
      const back: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(answer.headers)) if (!HOP_HEADERS.has(k) && v !== undefined) back[k] = v;
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
    });
    out.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`Could not reach ${url.host}: ${err.message}`);
      else res.destroy();
    });
    req.pipe(out);
  }
}

/** `host:port` of a CONNECT request (IPv6 in brackets), or undefined. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]+)):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: (m[1] ?? m[2])!, port };
}

function statusLine(status: number, message: string): string {
  const reason = status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : 'Bad Gateway';
  const body = `${message}\n`;
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
