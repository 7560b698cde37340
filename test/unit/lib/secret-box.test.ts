import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeKey, keyId, loadMasterKey, SecretBox, SecretBoxError } from '../../../src/lib/secret-box.js';

describe('SecretBox (AES-256-GCM with key ids)', () => {
  const key = randomBytes(32);

  it('seals to a versioned value naming the key, and opens it again', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('client-secret-123');
    expect(sealed).to.match(/^v1\.[0-9a-f]{16}\./);
    expect(sealed).not.to.include('client-secret-123');
    expect(SecretBox.keyIdOf(sealed)).to.equal(keyId(key));
    expect(box.open(sealed)).to.equal('client-secret-123');
    expect(box.seal('x')).not.to.equal(box.seal('x'));
  });

  it('refuses a tampered value or an unknown key', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('secret');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).to.throw(SecretBoxError);
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).to.throw(SecretBoxError, /unknown master key/);
    expect(() => box.open('garbage')).to.throw(SecretBoxError);
  });

  it('opens values of a previous key after rotation, sealing with the new one', () => {
    const oldBox = new SecretBox(key);
    const sealed = oldBox.seal('s');
    const next = randomBytes(32);
    const ring = new SecretBox(next, [key]);
    expect(ring.open(sealed)).to.equal('s');
    expect(SecretBox.keyIdOf(ring.seal('s'))).to.equal(keyId(next));
  });

  it('generates the key file once, mode 0600, and reads the same key back', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-key-'));
    try {
      const a = loadMasterKey(undefined, dir);
      const b = loadMasterKey(undefined, dir);
      expect(a.equals(b)).to.equal(true);
      expect(fs.statSync(path.join(dir, 'master.key')).mode & 0o777).to.equal(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prefers TOOLGATE_SECRET_KEY (base64 or hex)', () => {
    const hex = key.toString('hex');
    expect(decodeKey(hex).equals(key)).to.equal(true);
    expect(loadMasterKey(key.toString('base64'), '/nonexistent').equals(key)).to.equal(true);
    expect(() => decodeKey('c2hvcnQ=')).to.throw(/32 bytes/);
  });
});
