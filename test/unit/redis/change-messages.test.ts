import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { CHANGE_KINDS, parseChangeMessage } from '../../../src/redis/change-messages.js';

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('change messages (src/redis/change-messages.ts)', () => {
  it('names every kind that src/ publishes on the change bus', () => {
    const published = new Set<string>();
    for (const file of sources(path.resolve('src'))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\.publish\(\s*\{\s*kind:\s*'([a-z_]+)'/g)) published.add(m[1]!);
    }
    // The scan must find the bus's publishers at all, or it proves nothing.
    expect(published.size).to.be.at.least(8);
    for (const kind of published) expect(CHANGE_KINDS, `published kind '${kind}'`).to.include(kind);
  });

  it('parses a message of every kind with its fields', () => {
    const samples = [
      { kind: 'api_key', keyHash: 'h' },
      { kind: 'user', userId: 'u' },
      { kind: 'session', sessionId: 's' },
      { kind: 'auth_settings' },
      { kind: 'general_settings' },
      { kind: 'gateway_settings', userId: 'u' },
      { kind: 'ai_providers' },
      { kind: 'bundle', bundleId: 'b', from: 'i' },
      { kind: 'teams', from: 'i' },
      { kind: 'tool_policy', from: 'i' },
      { kind: 'guardrails', from: 'i' },
      { kind: 'server', serverId: 's', from: 'i' },
      { kind: 'mcp_session_ended', sessionId: 's' },
      { kind: 'oauth_grant', grantId: 'g' },
      { kind: 'oauth_token', tokenHash: 'h' },
    ];
    expect(samples.map((m) => m.kind)).to.have.members(CHANGE_KINDS);
    for (const m of samples) expect(parseChangeMessage({ ...m, extra: 1 })).to.deep.equal(m);
  });

  it('drops unknown kinds and messages missing a field', () => {
    expect(parseChangeMessage({ kind: 'from_a_newer_version', id: 'x' })).to.equal(undefined);
    expect(parseChangeMessage({ kind: 'bundle', bundleId: 'b' })).to.equal(undefined);
    expect(parseChangeMessage({ kind: 'user', userId: 7 })).to.equal(undefined);
    expect(parseChangeMessage({ kind: 'toString' })).to.equal(undefined);
    expect(parseChangeMessage(null)).to.equal(undefined);
    expect(parseChangeMessage('api_key')).to.equal(undefined);
  });
});
