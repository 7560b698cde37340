import { expect } from 'chai';
import os from 'node:os';
import { PublicUrl } from '../../../src/http/public-url.js';

const at = (host: string, port = 8080, publicUrl?: string): PublicUrl => {
  const p = new PublicUrl({ host, port: 0, publicUrl });
  p.bound(host, port);
  return p;
};

describe('PublicUrl (the base URL of addresses in responses)', () => {
  it('uses TOOLGATE_PUBLIC_URL when set, whatever the Host says', () => {
    const p = at('127.0.0.1', 8080, 'https://gw.example.com/');
    expect(p.of({ host: 'evil.example' })).to.equal('https://gw.example.com');
    expect(p.secureCookies).to.equal(true);
    expect(at('127.0.0.1').secureCookies).to.equal(false);
  });

  it('while bound to loopback, keeps a loopback Host naming the bound port', () => {
    const p = at('127.0.0.1', 8080);
    expect(p.of({ host: '127.0.0.1:8080' })).to.equal('http://127.0.0.1:8080');
    expect(p.of({ host: 'localhost:8080' })).to.equal('http://localhost:8080');
    expect(p.of({ host: 'LOCALHOST.:8080' })).to.equal('http://localhost.:8080');
    expect(p.of({ host: '[::1]:8080' })).to.equal('http://[::1]:8080');
  });

  it('never reflects a foreign host, another port, or a malformed Host: falls back to the bound address', () => {
    const p = at('127.0.0.1', 8080);
    for (const host of [
      'evil.example:8080',
      'evil.example',
      '127.0.0.1:9999',
      '127.0.0.1',
      '10.0.0.1:8080',
      'localhost:8080/x',
      'localhost:8080@evil.example',
      'a b:8080',
      '[::1',
      '[zz::1]:8080',
      '',
      'localhost:080800',
      `${'a'.repeat(300)}:8080`,
    ])
      expect(p.of({ host }), host).to.equal('http://127.0.0.1:8080');
    expect(p.of({})).to.equal('http://127.0.0.1:8080');
    expect(p.of({ host: ['localhost:8080', 'evil:8080'] })).to.equal('http://127.0.0.1:8080');
  });

  it('while bound to one address, accepts exactly that host', () => {
    const p = at('192.0.2.10', 9000);
    expect(p.of({ host: '192.0.2.10:9000' })).to.equal('http://192.0.2.10:9000');
    expect(p.of({ host: 'localhost:9000' })).to.equal('http://192.0.2.10:9000');
    expect(p.of({ host: 'gw.example:9000' })).to.equal('http://192.0.2.10:9000');
    expect(at('gw.internal', 80).of({ host: 'GW.internal' })).to.equal('http://gw.internal');
  });

  it('while bound to every interface, accepts loopback and this machine’s own addresses only', () => {
    const p = at('0.0.0.0', 8080);
    expect(p.of({ host: 'localhost:8080' })).to.equal('http://localhost:8080');
    expect(p.of({ host: 'gw.example:8080' })).to.equal('http://127.0.0.1:8080');
    expect(p.of({ host: '203.0.113.77:8080' })).to.equal('http://127.0.0.1:8080');
    const own = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (own) expect(p.of({ host: `${own.address}:8080` })).to.equal(`http://${own.address}:8080`);
    expect(at('::', 8080).of({ host: 'evil:8080' })).to.equal('http://127.0.0.1:8080');
  });
});
