import { expect } from 'chai';
import { ApiClient } from '../../helpers/api-client.js';
import { startTestServer } from '../../helpers/test-server.js';

describe('data survives a restart', function () {
  this.timeout(60000);

  it('keeps users and keys: the owner key works after a restart on the same data', async () => {
    const first = await startTestServer({ keepData: true });
    const dataDir = first.config.dataDir;
    const schema = first.config.databaseSchema;
    const me = await first.owner.get('/health');
    expect(me.status).to.equal(200);
    await first.stop();

    const second = await startTestServer({ reuse: { dataDir, schema } });
    try {
      const owner = new ApiClient(second.url, first.ownerKey);
      // An authenticated request gets past 401: the key and its owner were read back from disk.
      const res = await owner.get('/api/v1/bundles?page_size=101');
      expect(res.status).to.equal(422);
      const count = await second.server.services.stores.users.count();
      expect(count).to.equal(1);
    } finally {
      await second.stop();
    }
  });
});
