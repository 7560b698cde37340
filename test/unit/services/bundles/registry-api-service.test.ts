import { expect } from 'chai';
import { bundleSlug, bundleVersion, registryNamespace } from '../../../../src/services/bundles/registry-api-service.js';

describe('Registry API names and versions', () => {
  it('reverses the public host into the namespace', () => {
    expect(registryNamespace('https://gateway.example.com')).to.equal('com.example.gateway');
    expect(registryNamespace('http://127.0.0.1:8080/')).to.equal('127.0.0.1');
    expect(registryNamespace('http://[::1]:3000')).to.equal('ip6---1');
    expect(registryNamespace('http://localhost:3000')).to.equal('localhost');
  });

  it('slugs bundle names into the characters a registry name allows', () => {
    expect(bundleSlug('Support Tools!')).to.equal('support-tools');
    expect(bundleSlug('Équipe Données')).to.equal('equipe-donnees');
    expect(bundleSlug('支援')).to.equal('bundle');
    expect(bundleSlug('a'.repeat(120))).to.have.length(80);
  });

  it('names a version after the last change, growing with time', () => {
    expect(bundleVersion(new Date('2026-11-28T05:04:03.007Z'))).to.equal('20261128.50403.7');
    expect(bundleVersion(new Date('2026-01-02T00:00:00.000Z'))).to.equal('20260102.0.0');
  });
});
