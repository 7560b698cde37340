import { expect } from 'chai';
import { capturedLogs, sharedServer, type TestServer } from '../../helpers/test-server.js';

describe('errors in the contract shapes', () => {
  let t: TestServer;
  before(async () => {
    t = await sharedServer();
  });

  describe('422 validation errors (authenticated caller)', () => {
    const cases: [string, string, (string | number)[], string][] = [
      ['page_size=101', '/api/v1/bundles?page_size=101', ['query', 'page_size'], 'less_than_equal'],
      ['page_size=0', '/api/v1/bundles?page_size=0', ['query', 'page_size'], 'greater_than_equal'],
      ['page=0', '/api/v1/bundles?page=0', ['query', 'page'], 'greater_than_equal'],
      ['page=abc', '/api/v1/bundles?page=abc', ['query', 'page'], 'int_type'],
      ['a 256-char search', `/api/v1/bundles?search=${'s'.repeat(256)}`, ['query', 'search'], 'string_too_long'],
      ['a non-uuid bundle_id', '/api/v1/bundles/not-a-uuid', ['path', 'bundle_id'], 'uuid_parsing'],
    ];
    for (const [what, path, loc, type] of cases) {
      it(`answers 422 for ${what}`, async () => {
        const res = await t.owner.get(path);
        expect(res.status).to.equal(422);
        expect(res.body.detail).to.be.an('array').with.length.greaterThan(0);
        const issue = res.body.detail.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc));
        expect(issue, JSON.stringify(res.body)).to.include({ type });
        expect(issue.msg).to.be.a('string').with.length.greaterThan(0);
        expect(issue).to.have.property('input');
        expect(issue.ctx).to.be.an('object');
      });
    }

    it('accepts the limits themselves (page_size=100, 255-char search) and gets past validation', async () => {
      const res = await t.owner.get(`/api/v1/bundles?page=1&page_size=100&search=${'s'.repeat(255)}`);
      expect(res.status).to.not.equal(422);
      expect(res.status).to.be.oneOf([200, 501]);
    });

    it('answers 422 json_invalid for malformed JSON', async () => {
      const res = await t.owner.request('POST', '/api/v1/bundles', { rawBody: '{"name": ' });
      expect(res.status).to.equal(422);
      expect(res.body.detail[0]).to.include({ type: 'json_invalid' });
      expect(res.body.detail[0].loc).to.deep.equal(['body']);
    });

    it('answers 422 for a missing required body', async () => {
      const res = await t.owner.request('POST', '/api/v1/bundles', {});
      expect(res.status).to.equal(422);
      expect(res.body.detail[0].loc).to.deep.equal(['body']);
      expect(res.body.detail[0].type).to.equal('missing');
    });

    it('answers 422 naming each bad body field', async () => {
      const res = await t.owner.post('/api/v1/bundles', { name: '', unknown_field: 1 });
      expect(res.status).to.equal(422);
      const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
      expect(locs).to.include('body.name');
      expect(locs).to.include('body.unknown_field');
    });
  });

  describe('authentication before validation', () => {
    it('answers 401 (not 422) to an unauthenticated bundle listing, even with bad parameters', async () => {
      for (const path of ['/api/v1/bundles', '/api/v1/bundles?page_size=101']) {
        const res = await t.anon.get(path);
        expect(res.status).to.equal(401);
        expect(res.body).to.include({ code: 'unauthorized' });
        expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
      }
    });

    it('answers 401 to a malformed or unknown key without saying which', async () => {
      for (const token of ['nope', `tg_usr_live_${'A'.repeat(43)}`]) {
        const res = await t.anon.get('/api/v1/bundles', { token });
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('invalid_api_key');
      }
    });
  });

  describe('an unknown query parameter on an operation that takes none', () => {
    // Each answer is checked against the contract by the client: the 422 must be documented there.
    const operations: [string, string][] = [
      ['GET', '/health'],
      ['GET', '/ready'],
      ['GET', '/api/v1/settings/auth'],
      ['GET', '/api/v1/settings/auth/providers'],
      ['GET', '/api/v1/settings/general'],
      ['GET', '/api/v1/settings/providers'],
      ['GET', '/api/v1/users/me'],
      ['GET', '/api/v1/users/me/gateway-settings'],
      ['GET', '/api/v1/auth/providers'],
      ['POST', '/api/v1/auth/logout'],
    ];
    for (const [method, path] of operations) {
      it(`${method} ${path}?unknown=1 answers the documented 422 naming it`, async () => {
        const res = await t.owner.request(method, `${path}?unknown=1`);
        expect(res.status).to.equal(422);
        expect(res.body.detail[0]).to.include({ type: 'extra_forbidden' });
        expect(res.body.detail[0].loc).to.deep.equal(['query', 'unknown']);
      });
    }
  });

  describe('malformed percent-encoding in the path', () => {
    const paths = ['/api/v1/bundles/%ff%fe', '/api/v1/bundles/%E0%A4%A', '/api/v1/servers/%'];
    it('answers 401 before authentication (404 for an unknown path), never a 500 or a stack trace', async () => {
      const before = capturedLogs.length;
      for (const path of paths) {
        const res = await t.anon.get(path);
        expect(res.status, path).to.equal(401);
        expect(res.body.code, path).to.equal('unauthorized');
      }
      expect((await t.anon.get('/api/v1/nothing/%zz')).status).to.equal(404);
      const logged = capturedLogs.slice(before).join('');
      expect(logged).to.not.match(/URIError|stack|at .*\.ts:\d+/);
    });

    it('answers an authenticated caller 422 naming the parameter, or 404 for an unknown path (never a 500)', async () => {
      const expected: [string, number, unknown[] | null][] = [
        ['/api/v1/bundles/%ff%fe', 422, ['path', 'bundle_id']],
        ['/api/v1/bundles/%E0%A4%A', 422, ['path', 'bundle_id']],
        ['/api/v1/servers/%', 422, ['path', 'server_id']],
        ['/api/v1/nothing/%zz', 404, null],
      ];
      for (const [path, status, loc] of expected) {
        const res = await t.owner.get(path);
        expect(res.status, path).to.equal(status);
        if (loc) expect(res.body.detail.map((d: { loc: unknown }) => JSON.stringify(d.loc))).to.include(JSON.stringify(loc));
        else expect(res.body.code).to.equal('not_found');
      }
    });
  });

  describe('404, 405, 413 and 415', () => {
    it('answers 404 ErrorResponse for an unknown path', async () => {
      const res = await t.anon.get('/api/v1/nothing-here');
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 'not_found' });
      expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
    });

    it('answers 405 ErrorResponse with Allow for a wrong method', async () => {
      const res = await t.anon.request('DELETE', '/health');
      expect(res.status).to.equal(405);
      expect(res.body.code).to.equal('method_not_allowed');
      expect(res.headers.get('allow')).to.equal('GET');
    });

    it('answers 413 for a body over the limit', async () => {
      const res = await t.owner.post('/api/v1/bundles', { name: 'x', description: 'd'.repeat(2 * 1024 * 1024) });
      expect(res.status).to.equal(413);
      expect(res.body.code).to.equal('payload_too_large');
    });

    it('answers 415 for a body that is not JSON', async () => {
      const res = await t.owner.request('POST', '/api/v1/bundles', {
        rawBody: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).to.equal(415);
      expect(res.body.code).to.equal('unsupported_media_type');
    });
  });
});
