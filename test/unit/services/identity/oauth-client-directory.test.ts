import { expect } from 'chai';
import { ManualClock } from '../../../../src/lib/clock.js';
import { OAuthClientDirectory, UnknownClientError, clientFromDocument } from '../../../../src/services/identity/oauth-client-directory.js';
import type { OAuthStore } from '../../../../src/stores/oauth-store.js';

const URL_ID = 'https://app.example.com/oauth/client.json';
const DOC = { client_id: URL_ID, client_name: 'Example', redirect_uris: ['http://127.0.0.1:3000/cb'], token_endpoint_auth_method: 'none' };

/** A fetch answering from a script, counting calls. */
function scripted(answer: () => Response) {
  const f = async (_url: string) => {
    f.calls += 1;
    return answer();
  };
  f.calls = 0;
  return f;
}

function directory(fetch: (url: string) => Promise<Response>, clock = new ManualClock()) {
  const store = { findClient: async () => undefined } as unknown as OAuthStore;
  return { dir: new OAuthClientDirectory({ store: () => store, clock, fetch }), clock };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(UnknownClientError);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('OAuth client directory: client ID metadata documents', () => {
  it('validates a document: client_id equal to its URL, acceptable redirect URIs, public client', () => {
    expect(clientFromDocument(URL_ID, DOC)).to.deep.include({ clientId: URL_ID, name: 'Example', kind: 'metadata_document' });
    expect(() => clientFromDocument(URL_ID, { ...DOC, client_id: 'https://other.example/c.json' })).to.throw(/different client_id/);
    expect(() => clientFromDocument(URL_ID, { ...DOC, redirect_uris: ['javascript:alert(1)'] })).to.throw(/redirect URI/);
    expect(() => clientFromDocument(URL_ID, { ...DOC, redirect_uris: [] })).to.throw(/redirect_uris/);
    expect(() => clientFromDocument(URL_ID, { ...DOC, token_endpoint_auth_method: 'client_secret_basic' })).to.throw(/public clients/);
    expect(() => clientFromDocument(URL_ID, [DOC])).to.throw(/JSON object/);
  });

  it('fetches once and serves from the cache until max-age passes (at least a minute)', async () => {
    const fetch = scripted(() => new Response(JSON.stringify(DOC), { headers: { 'cache-control': 'max-age=5' } }));
    const { dir, clock } = directory(fetch);
    await dir.resolve(URL_ID);
    await dir.resolve(URL_ID);
    expect(fetch.calls).to.equal(1);
    clock.advance(30_000);
    await dir.resolve(URL_ID);
    expect(fetch.calls).to.equal(1);
    clock.advance(31_000);
    await dir.resolve(URL_ID);
    expect(fetch.calls).to.equal(2);
  });

  it('refuses a non-200 answer (redirects are not followed), an oversized document and non-JSON, and caches the failure', async () => {
    const redirect = scripted(() => new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } }));
    expect(await refusal(directory(redirect).dir.resolve(URL_ID))).to.match(/HTTP 302/);
    const big = scripted(() => new Response(JSON.stringify({ ...DOC, pad: 'x'.repeat(20_000) })));
    expect(await refusal(directory(big).dir.resolve(URL_ID))).to.match(/too large/);
    const text = scripted(() => new Response('<html>'));
    const { dir } = directory(text);
    expect(await refusal(dir.resolve(URL_ID))).to.match(/not JSON/);
    await refusal(dir.resolve(URL_ID));
    expect(text.calls).to.equal(1);
  });

  it('refuses URL-shaped ids without a path, with a fragment or with dot segments, without fetching', async () => {
    const fetch = scripted(() => new Response(JSON.stringify(DOC)));
    const { dir } = directory(fetch);
    for (const id of ['https://app.example.com/', 'https://app.example.com/c.json#x', 'https://app.example.com/a/../c.json'])
      await refusal(dir.resolve(id));
    expect(fetch.calls).to.equal(0);
  });

  it('refuses an unknown registered client id', async () => {
    const { dir } = directory(scripted(() => new Response('')));
    expect(await refusal(dir.resolve('tgc_unknown'))).to.equal('unknown client');
  });
});
