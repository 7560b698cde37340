import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { loadConfig } from '../../../src/config.js';
import { OutboundPolicy } from '../../../src/lib/outbound-policy.js';
import { createLogger } from '../../../src/logger.js';
import { EgressProxy, parseAuthority, type EgressSocket } from '../../../src/sandbox/egress-proxy.js';

/** The egress proxy on its own: what it lets through, what it refuses, and how it says so. */
describe('EgressProxy', function () {
  this.timeout(30_000);
  let web: http.Server;
  let port = 0;
  let proxy: EgressProxy;
  let socket: EgressSocket;
  let approved: string[] = [];
  const logged: string[] = [];
  const logger = createLogger(loadConfig({ TOOLGATE_LOG_LEVEL: 'silent' }));
  const spy = Object.assign(Object.create(logger) as typeof logger, {
    warn: (obj: unknown, msg?: string) => void logged.push(`${JSON.stringify(obj)} ${msg ?? ''}`),
  });

  before(async () => {
    web = http.createServer((req, res) => res.end(`hello ${req.url}`));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    port = (web.address() as net.AddressInfo).port;
    // The gateway's policy allows this one loopback port; `localhost` by name is not allow-listed.
    proxy = new EgressProxy({ policy: new OutboundPolicy([`127.0.0.1:${port}`]), logger: spy });
    socket = await proxy.listen('server-1', () => approved);
  });
  after(async () => {
    await proxy?.close();
    web?.close();
  });
  beforeEach(() => {
    logged.length = 0;
  });

  /** Sends a raw request over the egress socket; resolves with the first line and the body. */
  const raw = (request: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const c = net.connect(socket.path);
      let text = '';
      c.on('data', (d) => {
        text += d.toString();
        if (text.includes('hello')) c.end();
      });
      c.on('end', () => resolve(text));
      c.on('error', reject);
      c.write(request);
    });

  it('tunnels CONNECT to an approved host:port that the outbound policy allows', async () => {
    approved = [`127.0.0.1:${port}`];
    const text = await raw(
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\nGET /t HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(text).to.match(/^HTTP\/1\.1 200 Connection Established/);
    expect(text).to.include('hello /t');
  });

  it('forwards an absolute-form http request to an approved destination', async () => {
    approved = [`127.0.0.1:${port}`];
    const text = await raw(`GET http://127.0.0.1:${port}/abs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(text).to.match(/^HTTP\/1\.1 200/);
    expect(text).to.include('hello /abs');
  });

  it('refuses (403) a destination that is not on the server’s list, another port of an approved host included, and logs no path', async () => {
    approved = [`127.0.0.1:${port}`];
    for (const target of ['127.0.0.1:6379', '10.1.2.3:443']) {
      const text = await raw(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      expect(text, target).to.match(/^HTTP\/1\.1 403 Forbidden/);
      expect(text).to.include("not on this server's approved network list");
    }
    const plain = await raw(`GET http://127.0.0.1:6379/secret-path?token=abc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(plain).to.match(/^HTTP\/1\.1 403/);
    expect(logged.join('\n')).to.include('"port":6379');
    expect(logged.join('\n')).to.not.include('secret-path');
    expect(logged.join('\n')).to.not.include('token=abc');
  });

  it('refuses (403) an approved name whose resolved address the outbound policy refuses for that port', async () => {
    // `localhost` resolves to loopback: approving it for the server is not enough, the gateway's policy decides the address.
    approved = ['localhost:6379', 'localhost:*'];
    const text = await raw('CONNECT localhost:6379 HTTP/1.1\r\nHost: localhost:6379\r\n\r\n');
    expect(text).to.match(/^HTTP\/1\.1 403/);
    expect(text).to.match(/resolves to a private, loopback or link-local address/);
  });

  it('answers 400 to a CONNECT without host:port, and reads the list at each connection', async () => {
    expect(await raw('CONNECT nonsense HTTP/1.1\r\nHost: x\r\n\r\n')).to.match(/^HTTP\/1\.1 400/);
    approved = [];
    expect(await raw(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: x\r\n\r\n`)).to.match(/^HTTP\/1\.1 403/);
  });

  it('parses CONNECT authorities, IPv6 in brackets', () => {
    expect(parseAuthority('example.com:443')).to.deep.equal({ host: 'example.com', port: 443 });
    expect(parseAuthority('[::1]:8080')).to.deep.equal({ host: '::1', port: 8080 });
    expect(parseAuthority('example.com')).to.equal(undefined);
    expect(parseAuthority('example.com:0')).to.equal(undefined);
    expect(parseAuthority('a/b:80')).to.equal(undefined);
  });
});
