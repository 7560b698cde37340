import { expect } from 'chai';
import fs from 'node:fs';
import { openDatabase } from '../../src/stores/database.js';
import { setupFixtureBundle, type FixtureBundle } from '../helpers/fixture-bundle.js';
import { ACCEPT_BOTH, mcpFetch, modernRequest, RawSession, responseOf } from '../helpers/mcp-http.js';
import { dropSchema, startTestServer, type TestServer } from '../helpers/test-server.js';

/** Call records of a stopped server, read from its database (the server has closed it). */
async function sleepRecords(t: TestServer): Promise<{ status: string }[]> {
  const db = openDatabase(t.config);
  try {
    return await db.knex('call_records').where({ tool_name: 'sleep' }).select('status');
  } finally {
    await db.close();
  }
}

async function removeData(t: TestServer): Promise<void> {
  if (t.config.databaseUrl && t.config.databaseSchema) await dropSchema(t.config.databaseUrl, t.config.databaseSchema);
  fs.rmSync(t.config.dataDir, { recursive: true, force: true });
}

/** Reads an SSE response until it ends; resolves with when it ended. */
async function streamEnd(res: Response): Promise<number> {
  const reader = res.body!.getReader();
  try {
    while (!(await reader.read()).done);
  } catch {
    // a reset also ends it
  }
  return Date.now();
}

describe('graceful stop (SIGTERM) with MCP calls in flight', function () {
  this.timeout(180000);

  it('lets in-flight calls of a legacy session and of 2026-07-28 finish, closes GET streams first, refuses new sessions, records every call', async () => {
    const t = await startTestServer({ keepData: true, env: { TOOLGATE_SHUTDOWN_TIMEOUT_MS: '20000' } });
    try {
      const fixture: FixtureBundle = await setupFixtureBundle(t.owner, t.url, { tools: ['sleep'] });
      const session = new RawSession(fixture.endpoint, '2025-11-25');
      await session.initialize();
      const stream = await fetch(fixture.endpoint, { headers: { accept: 'text/event-stream', ...session.headers() } });
      expect(stream.status).to.equal(200);
      const streamEnded = streamEnd(stream);

      const CALL_MS = 2500;
      const legacy = [1, 2, 3, 4].map(() => session.call('sleep', { ms: CALL_MS }));
      const { headers, body } = modernRequest('tools/call', { name: 'sleep', arguments: { ms: CALL_MS } });
      const modern = mcpFetch(fixture.endpoint, { body, headers }).then(responseOf);
      await new Promise((r) => setTimeout(r, 400)); // the five calls are in flight

      const stopAsked = Date.now();
      const stopped = t.server.stop();
      // The GET stream ends at once, long before the calls do.
      expect((await streamEnded) - stopAsked).to.be.lessThan(CALL_MS);
      // A new session is refused meanwhile (503 on a kept-alive connection, or no connection at all).
      const late = await mcpFetch(fixture.endpoint, {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
        },
        headers: { accept: ACCEPT_BOTH },
      }).then(
        (reply) => reply.status,
        () => 'refused',
      );
      expect(late).to.be.oneOf([503, 'refused']);

      const answers = await Promise.all([...legacy, modern]);
      for (const answer of answers) {
        expect(answer.error, JSON.stringify(answer)).to.equal(undefined);
        expect(answer.result.isError ?? false).to.equal(false);
        expect(answer.result.content[0].text).to.equal(`slept ${CALL_MS} ms`);
      }
      await stopped;
      const records = await sleepRecords(t);
      expect(records.map((r) => r.status)).to.deep.equal(['ok', 'ok', 'ok', 'ok', 'ok']);
    } finally {
      await t.stop();
      await removeData(t);
    }
  });

  it('past TOOLGATE_SHUTDOWN_TIMEOUT_MS cancels what still runs, stops in bounded time, and records the calls as cancelled', async () => {
    const t = await startTestServer({ keepData: true, env: { TOOLGATE_SHUTDOWN_TIMEOUT_MS: '500' } });
    try {
      const fixture = await setupFixtureBundle(t.owner, t.url, { tools: ['sleep'] });
      const session = new RawSession(fixture.endpoint, '2025-06-18');
      await session.initialize();
      const calls = [1, 2].map(() =>
        session.call('sleep', { ms: 60000 }).then(
          (answer) => answer,
          () => 'connection closed',
        ),
      );
      await new Promise((r) => setTimeout(r, 400));
      const started = Date.now();
      await t.server.stop();
      expect(Date.now() - started).to.be.lessThan(10000);
      for (const outcome of await Promise.all(calls)) {
        if (outcome !== 'connection closed') expect(outcome?.result?.content?.[0]?.text).not.to.equal('slept 60000 ms');
      }
      const records = await sleepRecords(t);
      expect(records.map((r) => r.status)).to.deep.equal(['cancelled', 'cancelled']);
    } finally {
      await t.stop();
      await removeData(t);
    }
  });
});
