import { expect } from 'chai';
import { bearerChallenge, canonicalResource, clientSecretBasic, resourceCovers } from '../../../src/upstream/upstream-oauth.js';

describe('upstream OAuth: challenges and resource identifiers', () => {
  describe('bearerChallenge', () => {
    it('reads resource_metadata, scope and error of a Bearer challenge, quoted or not', () => {
      expect(
        bearerChallenge(
          'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
        ),
      ).to.deep.equal({
        error: 'insufficient_scope',
        scope: 'files:read files:write',
        resource_metadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      });
      expect(bearerChallenge('Bearer realm=mcp, scope=read')).to.deep.equal({ realm: 'mcp', scope: 'read' });
    });

    it('finds the Bearer challenge after another scheme, and answers undefined without one', () => {
      expect(bearerChallenge('Basic realm="x", Bearer scope="a"')?.scope).to.equal('a');
      expect(bearerChallenge('Basic realm="x"')).to.equal(undefined);
      expect(bearerChallenge(null)).to.equal(undefined);
    });
  });

  describe('canonicalResource', () => {
    it('lower-cases scheme and host and drops the fragment and a trailing slash', () => {
      expect(canonicalResource('HTTPS://MCP.Example.com/mcp/#x')).to.equal('https://mcp.example.com/mcp');
      expect(canonicalResource('https://mcp.example.com/')).to.equal('https://mcp.example.com');
    });
  });

  describe('resourceCovers', () => {
    it('accepts the server URL itself or a resource whose path contains it, on the same origin', () => {
      expect(resourceCovers('https://a.example/mcp', 'https://a.example/mcp')).to.equal(true);
      expect(resourceCovers('https://a.example/', 'https://a.example/mcp')).to.equal(true);
      expect(resourceCovers('https://a.example/mcp/', 'https://a.example/mcp')).to.equal(true);
    });

    it('refuses another origin, another path, or a mere prefix of a path segment', () => {
      expect(resourceCovers('https://b.example/mcp', 'https://a.example/mcp')).to.equal(false);
      expect(resourceCovers('https://a.example/other', 'https://a.example/mcp')).to.equal(false);
      expect(resourceCovers('https://a.example/mc', 'https://a.example/mcp')).to.equal(false);
      expect(resourceCovers('not a url', 'https://a.example/mcp')).to.equal(false);
    });
  });

  describe('clientSecretBasic', () => {
    const header = (id: string, secret: string) => {
      const headers = new Headers();
      clientSecretBasic(secret)({ issuer: 'https://as.example' }, { client_id: id }, new URLSearchParams(), headers);
      return Buffer.from(headers.get('authorization')!.replace(/^Basic /, ''), 'base64').toString('utf8');
    };

    it('leaves the unreserved characters of ids and secrets as they are (servers that compare without decoding)', () => {
      expect(header('pre-registered-client', 'pre_registered.secret*1')).to.equal('pre-registered-client:pre_registered.secret*1');
    });

    it('form-urlencodes what must be: a colon, a space, a percent sign, non-ASCII', () => {
      expect(header('a:b c', '50%é')).to.equal('a%3Ab+c:50%25%C3%A9');
    });
  });
});
