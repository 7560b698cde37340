/**
 * Baseline R: the plain Node reverse proxy (node:http + an undici keep-alive pool, body passed
 * through untouched). The physical floor for "one more Node process" between client and upstream.
 * Usage: tsx bench/raw-proxy.ts <upstream-port>   → prints {"port": n}.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const pool = new Pool(`http://127.0.0.1:${process.argv[2]}`, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });

const server = http.createServer((req, res) => {
  pool.request({ method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: req }).then(
    async (up) => {
      res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
      for await (const chunk of up.body) res.write(chunk);
      res.end();
    },
    () => {
      res.writeHead(502).end();
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
