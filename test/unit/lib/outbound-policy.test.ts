import { expect } from 'chai';
import { OutboundPolicy, OutboundRefusedError } from '../../../src/lib/outbound-policy.js';

async function refused(policy: OutboundPolicy, url: string): Promise<boolean> {
  try {
    await policy.check(url);
    return false;
  } catch (err) {
    if (err instanceof OutboundRefusedError) return true;
    throw err;
  }
}

describe('OutboundPolicy (SSRF guard)', () => {
  const strict = new OutboundPolicy();

  for (const url of [
    'http://127.0.0.1/x',
    'http://127.1.2.3:8080/',
    'http://localhost/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[::ffff:127.0.0.1]/',
    'file:///etc/passwd',
    'gopher://example.com/',
    'not a url',
  ]) {
    it(`refuses ${url}`, async () => {
      expect(await refused(strict, url)).to.equal(true);
    });
  }

  it('allows a public address', async () => {
    expect(await refused(strict, 'https://93.184.215.14/')).to.equal(false);
    expect(() => strict.checkStatic('https://login.example.com/.well-known/openid-configuration')).to.not.throw();
  });

  it('allows allow-listed hosts and CIDR ranges, and only those', async () => {
    const policy = new OutboundPolicy(['127.0.0.1', '10.0.0.0/8', 'idp.internal']);
    expect(await refused(policy, 'http://127.0.0.1:9000/')).to.equal(false);
    expect(await refused(policy, 'http://10.20.30.40/')).to.equal(false);
    expect(await refused(policy, 'http://127.0.0.2/')).to.equal(true);
    expect(await refused(policy, 'http://192.168.0.1/')).to.equal(true);
    expect(() => policy.checkStatic('http://idp.internal/x')).to.not.throw();
    policy.setAllowlist([]);
    expect(await refused(policy, 'http://127.0.0.1:9000/')).to.equal(true);
  });

  it('checks literal private addresses without DNS when a URL is saved', () => {
    expect(() => strict.checkStatic('http://127.0.0.1/')).to.throw(OutboundRefusedError);
    expect(() => strict.checkStatic('http://app.localhost/')).to.throw(OutboundRefusedError);
    expect(() => strict.checkStatic('ftp://example.com/')).to.throw(OutboundRefusedError);
  });

  it('recognises a fully qualified loopback name (trailing dot) as loopback, and matches allow-list entries either way', () => {
    for (const url of ['http://localhost./', 'http://LocalHost.:8080/mcp', 'http://app.localhost./', 'http://127.0.0.1./'])
      expect(() => strict.checkStatic(url), url).to.throw(OutboundRefusedError, /not allow-listed/);
    expect(() => new OutboundPolicy(['localhost']).checkStatic('http://localhost./')).to.not.throw();
    expect(() => new OutboundPolicy(['idp.internal.']).checkStatic('http://idp.internal/x')).to.not.throw();
  });
});
