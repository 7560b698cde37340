/**
 * Toolgate's own signing keys, for the one place it asserts an identity to someone else: the
 * subject token of an upstream token exchange (RFC 8693), a short-lived JWT naming the calling user,
 * which the upstream's authorization server verifies with Toolgate's JWKS (`GET /oauth/jwks`).
 * One ES256 key, made on first use and kept in the database (private key sealed with the master
 * key) so every instance signs with the same key and publishes the same set. The JOSE work is
 * `jose`'s.
 */
import { randomUUID, type webcrypto } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type JWK } from 'jose';
import type { SecretBox } from '../../lib/secret-box.js';
import type { UpstreamOAuthStore } from '../../stores/upstream-oauth-store.js';

const ALG = 'ES256';
/** Life of a subject token: long enough for one token request, no longer. */
const SUBJECT_TOKEN_TTL_SECONDS = 300;

export class ToolgateIssuerKeys {
  private signer: Promise<{ kid: string; key: webcrypto.CryptoKey }> | undefined;

  constructor(private readonly deps: { store: UpstreamOAuthStore; secrets: SecretBox }) {}

  /** The public keys, as a JWK Set (RFC 7517). */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.current();
    const rows = await this.deps.store.signingKeys();
    return { keys: rows.map((r) => ({ ...(r.public_jwk as JWK), kid: r.kid, alg: r.alg, use: 'sig' })) };
  }

  /**
   * A subject token for `user` toward the authorization server `audience`: `iss` = `issuer`
   * (Toolgate's public base URL), `sub` = the user's id, `email`, five minutes' life, a `jti`.
   */
  async subjectToken(p: { issuer: string; audience: string; user: { id: string; email: string }; now: Date }): Promise<string> {
    const { kid, key } = await this.current();
    const iat = Math.floor(p.now.getTime() / 1000);
    return new SignJWT({ email: p.user.email })
      .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
      .setIssuer(p.issuer)
      .setSubject(p.user.id)
      .setAudience(p.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + SUBJECT_TOKEN_TTL_SECONDS)
      .setJti(randomUUID())
      .sign(key);
  }

  /** The signing key: the oldest stored one, made and stored first when there is none. */
  private current(): Promise<{ kid: string; key: webcrypto.CryptoKey }> {
    this.signer ??= this.load().catch((err: unknown) => {
      this.signer = undefined;
      throw err;
    });
    return this.signer;
  }

  private async load(): Promise<{ kid: string; key: webcrypto.CryptoKey }> {
    let [row] = await this.deps.store.signingKeys();
    if (!row) {
      const pair = await generateKeyPair(ALG, { extractable: true });
      const jwk = await exportJWK(pair.publicKey);
      const kid = await calculateJwkThumbprint(jwk);
      await this.deps.store.insertSigningKey({
        kid,
        alg: ALG,
        private_key_sealed: this.deps.secrets.seal(await exportPKCS8(pair.privateKey)),
        public_jwk: jwk as Record<string, unknown>,
      });
      // Another instance may have stored its key first: the oldest signs, everywhere.
      [row] = await this.deps.store.signingKeys();
    }
    if (!row) throw new Error('No signing key could be stored');
    return { kid: row.kid, key: await importPKCS8(this.deps.secrets.open(row.private_key_sealed), row.alg) };
  }
}
