import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Version tag of the sealed format: `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts). */
const VERSION = 'v1';
const KEY_FILE = 'master.key';

/** Derives a purpose-bound key from the master key (HKDF-SHA256), e.g. the session-token signing key. */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `toolgate:${purpose}`, 32));
}

/** Short public identifier of a master key (first 8 bytes of its SHA-256, hex). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** Decodes a 32-byte key given as base64 or hex. */
export function decodeKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('a master key must be 32 bytes (base64 or hex)');
  return key;
}

/**
 * Loads the master key: `TOOLGATE_SECRET_KEY` when configured, otherwise the key file in the data
 * directory, generated once with mode 0600 (created exclusively, so two starting instances agree).
 */
export function loadMasterKey(secretKey: string | undefined, dataDir: string): Buffer {
  if (secretKey) return decodeKey(secretKey);
  const file = path.join(dataDir, KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return decodeKey(fs.readFileSync(file, 'utf8'));
}

/** Raised when a sealed value cannot be opened (unknown key, tampered or malformed). */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * AES-256-GCM sealing of secrets at rest. Seals with the current key; opens with any key of the
 * ring, so a master-key rotation can re-encrypt rows while old ones stay readable. The key id is
 * bound as associated data, so a value cannot be replayed under another key's id.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.currentKeyId = keyId(current);
    this.keys.set(this.currentKeyId, current);
    for (const k of previous) this.keys.set(keyId(k), k);
  }

  /** Encrypts `plaintext` under the current key. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(`${VERSION}.${this.currentKeyId}`));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.currentKeyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
      '.',
    );
  }

  /** Decrypts a value sealed by `seal` under any key of the ring. */
  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('malformed sealed value');
    const [, kid, iv, tag, ct] = parts as [string, string, string, string, string];
    const key = this.keys.get(kid);
    if (!key) throw new SecretBoxError(`sealed with an unknown master key (${kid})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`${VERSION}.${kid}`));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed value failed authentication');
    }
  }

  /** The key id a sealed value was sealed with (without opening it). */
  static keyIdOf(sealed: string): string | undefined {
    const parts = sealed.split('.');
    return parts.length === 5 && parts[0] === VERSION ? parts[1] : undefined;
  }
}
