import { expect } from 'chai';
import { hashKey, looksLikeUserKey, mintUserKey, sameHash } from '../../../src/domain/api-key-format.js';

describe('user API key format', () => {
  it('mints <prefix>_usr_<env>_<random> with at least 128 bits of randomness', () => {
    const live = mintUserKey('tg', 'live');
    const test = mintUserKey('tg', 'test');
    expect(live.key).to.match(/^tg_usr_live_[A-Za-z0-9_-]{43}$/);
    expect(test.key).to.match(/^tg_usr_test_[A-Za-z0-9_-]{43}$/);
    // 43 base64url characters carry 258 bits; the key never repeats.
    const many = new Set(Array.from({ length: 1000 }, () => mintUserKey('tg', 'live').key));
    expect(many.size).to.equal(1000);
  });

  it('stores only a SHA-256 digest and a short visible prefix', () => {
    const minted = mintUserKey('tg', 'live');
    expect(minted.keyHash)
      .to.equal(hashKey(minted.key))
      .and.to.match(/^[0-9a-f]{64}$/);
    expect(minted.key.startsWith(minted.keyPrefix)).to.equal(true);
    expect(minted.keyPrefix).to.have.length('tg_usr_live_'.length + 8);
  });

  it('recognises only keys of its own service prefix', () => {
    const { key } = mintUserKey('acme', 'live');
    expect(looksLikeUserKey(key, 'acme')).to.equal(true);
    expect(looksLikeUserKey(key, 'tg')).to.equal(false);
    expect(looksLikeUserKey(`${key}x`, 'acme')).to.equal(false);
    expect(looksLikeUserKey('acme_usr_prod_' + 'a'.repeat(43), 'acme')).to.equal(false);
  });

  it('compares digests in constant time and rejects different lengths', () => {
    const a = hashKey('a');
    expect(sameHash(a, hashKey('a'))).to.equal(true);
    expect(sameHash(a, hashKey('b'))).to.equal(false);
    expect(sameHash(a, 'abcd')).to.equal(false);
  });
});
