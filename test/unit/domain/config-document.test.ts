import { expect } from 'chai';
import {
  canonicalJson,
  envNameFor,
  envReferenceName,
  parseStoredSecretReference,
  resolveEnvReferences,
  storedSecretReference,
} from '../../../src/domain/config-document.js';

describe('configuration documents: secret references', () => {
  it('writes and reads back secret:// references, names with slashes included', () => {
    const ref = { kind: 'server', server: 'a/b server', field: 'headers', key: 'X-Api-Key' } as const;
    const text = storedSecretReference(ref);
    expect(text).to.equal('secret://servers/a%2Fb%20server/headers/X-Api-Key');
    expect(parseStoredSecretReference(text)).to.deep.equal(ref);
    expect(parseStoredSecretReference('secret://settings/registry_token')).to.deep.equal({ kind: 'registry_token' });
    const oauth = { kind: 'server', server: 'jira', field: 'oauth', key: 'client_secret' } as const;
    expect(storedSecretReference(oauth)).to.equal('secret://servers/jira/oauth/client_secret');
    expect(parseStoredSecretReference('secret://servers/jira/oauth/client_secret')).to.deep.equal(oauth);
    expect(parseStoredSecretReference('secret://servers/jira/oauth/client_id')).to.equal(null);
    expect(parseStoredSecretReference('secret://elsewhere/x')).to.equal(null);
    expect(parseStoredSecretReference('plain value')).to.equal(undefined);
  });

  it('names environment variables after the server and key, and reads ${env:NAME}', () => {
    expect(envNameFor('fixture-stdio', 'FIXTURE_TOKEN')).to.equal('TOOLGATE_SECRET_FIXTURE_STDIO_FIXTURE_TOKEN');
    expect(envNameFor('jira', 'X-Api-Key')).to.equal('TOOLGATE_SECRET_JIRA_X_API_KEY');
    expect(envReferenceName('${env:TOKEN_1}')).to.equal('TOKEN_1');
    expect(envReferenceName('prefix ${env:TOKEN}')).to.equal(undefined);
  });

  it('resolves ${env:…} only in secret positions and reports the variables that are not set', () => {
    const doc = {
      servers: [
        { name: 's', url: '${env:NOT_A_SECRET}', secret_env: { A: '${env:SET}', B: '${env:UNSET}' }, headers: { H: 'literal' } },
        { name: 'o', oauth: { client_id: '${env:SET}', client_secret: '${env:SET}' } },
      ],
      settings: { registry_token: '${env:SET}' },
    };
    const { missing } = resolveEnvReferences(doc, { SET: 'value' });
    expect(missing).to.deep.equal([{ loc: ['servers', 0, 'secret_env', 'B'], name: 'UNSET' }]);
    expect(doc.servers[0]!.secret_env).to.deep.equal({ A: 'value', B: '${env:UNSET}' });
    expect(doc.servers[0]!.url).to.equal('${env:NOT_A_SECRET}');
    expect(doc.settings.registry_token).to.equal('value');
    // An OAuth client secret is a secret position; its client id is not.
    expect(doc.servers[1]!.oauth).to.deep.equal({ client_id: '${env:SET}', client_secret: 'value' });
  });

  it('compares values whatever their key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).to.equal(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });
});
