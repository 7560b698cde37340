import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A freshly minted key: the full secret (shown once), its visible prefix and its hash. */
export interface MintedKey {
  key: string;
  keyPrefix: string;
  keyHash: string;
}

const RANDOM_CHARS = 43; // 32 random bytes, base64url: 256 bits

/** Mints `<service>_usr_<environment>_<43 base64url chars>` (256 bits of randomness). */
export function mintUserKey(servicePrefix: string, environment: 'live' | 'test'): MintedKey {
  const random = randomBytes(32).toString('base64url');
  const key = `${servicePrefix}_usr_${environment}_${random}`;
  return { key, keyPrefix: key.slice(0, key.length - RANDOM_CHARS + 8), keyHash: hashKey(key) };
}

/** SHA-256 (hex) of a key: the only form a key is stored or looked up in. */
export function hashKey(key: string): string {
  // crypto.hash: the one-shot form, about a third of createHash's cost (no Hash object per call).
  return hash('sha256', key, 'hex');
}

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when `token` has the shape of a user key of this service (no lookup made). */
export function looksLikeUserKey(token: string, servicePrefix: string): boolean {
  if (token.length !== servicePrefix.length + 10 + RANDOM_CHARS) return false;
  return new RegExp(`^${servicePrefix}_usr_(live|test)_[A-Za-z0-9_-]{${RANDOM_CHARS}}$`).test(token);
}
