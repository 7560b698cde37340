import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../../../helpers/api-client.js';
import { sharedServer, type TestServer } from '../../../helpers/test-server.js';

/** A reproducible stream of pseudo-random bytes (xorshift), so a failure can be replayed. */
function* seeded(seed: number): Generator<number> {
  let x = seed >>> 0 || 1;
  for (;;) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    yield (x >>> 0) % 256;
  }
}

/** Visible ASCII only: what an HTTP header can carry. */
function token(rand: Generator<number>, length: number, alphabet: string): string {
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[rand.next().value! % alphabet.length];
  return s;
}

describe('hostile credentials', function () {
  this.timeout(60000);
  let t: TestServer;
  before(async () => {
    t = await sharedServer();
  });

  it('answers 401 ErrorResponse (never 5xx) to 300 generated bearer tokens and session cookies', async () => {
    const rand = seeded(20261122);
    const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');
    const fixed = [
      `tg_usr_live_${'A'.repeat(43)}`,
      `tg_usr_test_${randomBytes(32).toString('base64url')}`,
      `tg_usr_live_${randomBytes(32).toString('base64url')}x`,
      `TG_USR_LIVE_${randomBytes(32).toString('base64url')}`,
      's1.00000000-0000-0000-0000-000000000000.9999999999.' + 'A'.repeat(43),
      `s1.${'x'.repeat(36)}.1.${'A'.repeat(43)}`,
      'v1.a.b.c.d',
      '%00',
      "' or 1=1 --",
      'x'.repeat(4000),
    ];
    const client = new ApiClient(t.url);
    const failures: string[] = [];
    for (let i = 0; i < 300; i++) {
      const pick = rand.next().value! % 3;
      const value =
        i < fixed.length
          ? fixed[i]!
          : pick === 0
            ? `tg_usr_${rand.next().value! % 2 ? 'live' : 'test'}_${token(rand, 43, b64)}`
            : pick === 1
              ? `s1.${token(rand, 36, '0123456789abcdef-')}.${token(rand, 10, '0123456789')}.${token(rand, 43, b64)}`
              : token(rand, 1 + (rand.next().value! % 200), printable.replace(';', ''));
      const asCookie = i % 2 === 1;
      const res = await client.get('/api/v1/users/me', asCookie ? { token: null, cookie: `access_token=${value}` } : { token: value });
      if (res.status !== 401 || typeof res.body?.code !== 'string')
        failures.push(`#${i} ${asCookie ? 'cookie' : 'bearer'} → ${res.status}`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });
});
