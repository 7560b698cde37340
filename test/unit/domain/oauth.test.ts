import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  isLoopbackRedirect,
  parseResource,
  pkceMatches,
  redirectHost,
  redirectUriMatches,
  redirectUriProblem,
  resourceUrl,
  validChallenge,
} from '../../../src/domain/oauth.js';

describe('OAuth rules (src/domain/oauth.ts)', () => {
  describe('PKCE S256', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    it('accepts the verifier of the challenge (RFC 7636 appendix B)', () => {
      expect(challenge).to.equal('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
      expect(validChallenge(challenge)).to.equal(true);
      expect(pkceMatches(verifier, challenge)).to.equal(true);
    });
    it('refuses another verifier, a short one, and one with characters outside the unreserved set', () => {
      expect(pkceMatches(`${verifier.slice(0, -1)}Y`, challenge)).to.equal(false);
      expect(pkceMatches('short', challenge)).to.equal(false);
      expect(pkceMatches(`${verifier}+/`, challenge)).to.equal(false);
      expect(validChallenge('plain-challenge')).to.equal(false);
    });
  });

  describe('redirect URIs', () => {
    it('allows https, http on loopback and private-use schemes', () => {
      for (const ok of [
        'https://claude.ai/api/mcp/auth_callback',
        'https://vscode.dev/redirect',
        'http://127.0.0.1:33418/',
        'http://localhost/cb',
        'http://[::1]:8080/cb',
        'vscode://vscode.github-authentication/did-authenticate',
        'cursor://anysphere.cursor-retrieval/oauth/callback',
        'com.example.app:/oauth2redirect',
      ])
        expect(redirectUriProblem(ok), ok).to.equal(undefined);
    });
    it('refuses fragments, credentials, http elsewhere and script or data schemes', () => {
      for (const bad of [
        'https://app.example/cb#x',
        'https://user:pw@app.example/cb',
        'http://app.example/cb',
        'javascript:alert(1)',
        'data:text/html,hi',
        'file:///etc/passwd',
        'not a uri',
      ])
        expect(redirectUriProblem(bad), bad).to.be.a('string');
    });
    it('matches exactly, except the port of a loopback redirect', () => {
      const registered = ['http://127.0.0.1:33418/callback', 'https://app.example/cb', 'vscode://ext/cb'];
      expect(redirectUriMatches('https://app.example/cb', registered)).to.equal(true);
      expect(redirectUriMatches('vscode://ext/cb', registered)).to.equal(true);
      expect(redirectUriMatches('http://127.0.0.1:50999/callback', registered)).to.equal(true);
      expect(redirectUriMatches('http://127.0.0.1:50999/other', registered)).to.equal(false);
      expect(redirectUriMatches('http://localhost:50999/callback', registered)).to.equal(false);
      expect(redirectUriMatches('https://app.example/cb/', registered)).to.equal(false);
      expect(redirectUriMatches('https://app.example:8443/cb', registered)).to.equal(false);
      expect(redirectUriMatches('vscode://ext/cb?x=1', registered)).to.equal(false);
      expect(isLoopbackRedirect('http://127.0.0.1:1/x')).to.equal(true);
      expect(redirectHost('vscode://ext/cb')).to.equal('vscode');
      expect(redirectHost('https://claude.ai/api/mcp/auth_callback')).to.equal('claude.ai');
    });
  });

  describe('resources', () => {
    const base = 'https://tg.example.com';
    it('names /mcp/gateway and one bundle through it, canonically', () => {
      expect(resourceUrl(base, { kind: 'gateway' })).to.equal('https://tg.example.com/mcp/gateway');
      expect(parseResource(base, 'https://tg.example.com/mcp/gateway')).to.deep.equal({ kind: 'gateway' });
      expect(parseResource(base, 'HTTPS://TG.example.com/mcp/gateway/')).to.deep.equal({ kind: 'gateway' });
      expect(parseResource(base, 'https://tg.example.com/mcp/gateway/bundles/abc-1')).to.deep.equal({ kind: 'bundle', bundleId: 'abc-1' });
    });
    it('refuses other origins, paths, queries and fragments', () => {
      for (const bad of [
        'https://evil.example.com/mcp/gateway',
        'http://tg.example.com/mcp/gateway',
        'https://tg.example.com/mcp/bundle/key',
        'https://tg.example.com/mcp/gateway?x=1',
        'https://tg.example.com/mcp/gateway#f',
        'https://tg.example.com/mcp/gateway/bundles/a/b',
        'mcp/gateway',
      ])
        expect(parseResource(base, bad), bad).to.equal(undefined);
    });
    it('keeps a path prefix of the public URL', () => {
      expect(parseResource('https://corp.example/toolgate', 'https://corp.example/toolgate/mcp/gateway')).to.deep.equal({
        kind: 'gateway',
      });
      expect(parseResource('https://corp.example/toolgate', 'https://corp.example/mcp/gateway')).to.equal(undefined);
    });
  });
});
