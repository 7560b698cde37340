import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthProxy {
  /** The proxy's URL: every request to it goes to the target URL's path with the header added. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A loopback pass-through that adds `Authorization: Bearer <key>` to every request and sends it
 * to one target URL, streaming both ways (SSE included), other headers (Host, Origin) untouched.
 * For clients that cannot send headers, such as the conformance suite, against `/mcp/gateway`.
 */
export async function startAuthProxy(target: string, key: string): Promise<AuthProxy> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: to.hostname,
        port: to.port,
        path: to.pathname + to.search,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
