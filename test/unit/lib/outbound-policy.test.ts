import { expect } from 'chai';
import { formatAllowlistEntry, OutboundPolicy, OutboundRefusedError, parseAllowlistEntry } from '../../../src/lib/outbound-policy.js';

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
    const policy = new OutboundPolicy(['127.0.0.1:9000', '10.0.0.0/8', 'idp.internal']);
    expect(await refused(policy, 'http://127.0.0.1:9000/')).to.equal(false);
    expect(await refused(policy, 'http://10.20.30.40/')).to.equal(false);
    expect(await refused(policy, 'http://127.0.0.2/')).to.equal(true);
    expect(await refused(policy, 'http://192.168.0.1/')).to.equal(true);
    expect(() => policy.checkStatic('http://idp.internal/x')).to.not.throw();
    policy.setAllowlist([]);
    expect(await refused(policy, 'http://127.0.0.1:9000/')).to.equal(true);
  });

  it('opens only the ports an entry names: web ports by default, one port, or every port with :*', async () => {
    const policy = new OutboundPolicy(['127.0.0.1', 'cache.internal:8443', '[::1]:*', '10.0.0.0/8:5000']);
    // A bare entry opens ports 80 and 443 only: never the host's database or cache.
    expect(await refused(policy, 'http://127.0.0.1/')).to.equal(false);
    expect(await refused(policy, 'https://127.0.0.1/')).to.equal(false);
    expect(await refused(policy, 'http://127.0.0.1:6379/')).to.equal(true);
    expect(await refused(policy, 'http://127.0.0.1:5432/')).to.equal(true);
    expect(() => policy.checkStatic('http://127.0.0.1:6379/')).to.throw(OutboundRefusedError, /127\.0\.0\.1:6379/);
    expect(() => policy.checkStatic('https://cache.internal:8443/')).to.not.throw();
    expect(policy.isAllowListed('https://cache.internal:8443/')).to.equal(true);
    expect(policy.isAllowListed('https://cache.internal/')).to.equal(false);
    expect(await refused(policy, 'http://[::1]:6379/')).to.equal(false);
    expect(await refused(policy, 'http://10.1.2.3:5000/')).to.equal(false);
    expect(await refused(policy, 'http://10.1.2.3:5001/')).to.equal(true);
  });

  it('parses and formats entries, refusing malformed ones', () => {
    const canonical = (e: string) => {
      const parsed = parseAllowlistEntry(e);
      return parsed ? formatAllowlistEntry(parsed) : undefined;
    };
    expect(canonical(' Host.Example.com ')).to.equal('host.example.com');
    expect(canonical('host.example.com:8080')).to.equal('host.example.com:8080');
    expect(canonical('127.0.0.1:*')).to.equal('127.0.0.1:*');
    expect(canonical('10.0.0.0/8:443')).to.equal('10.0.0.0/8:443');
    expect(canonical('[::1]:8080')).to.equal('[::1]:8080');
    expect(canonical('::1')).to.equal('::1');
    expect(canonical('[fd00::]/8')).to.equal('fd00::/8');
    for (const bad of ['', 'host:0', 'host:65536', 'host:abc', '10.0.0.0/33', 'a b', 'host:80:90', '[::1]:x'])
      expect(canonical(bad), bad).to.equal(undefined);
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
