/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against a bundle
 * endpoint in front of our fixture upstream, registered through the REST API and served through
 * the real pool, for the 2025-11-25 requirements and the 2026-07-28 scenarios: six targets, both
 * revisions in front of the fixture over stdio, over the HTTP+SSE transport and over Streamable
 * HTTP (the suite runs scenarios concurrently, so over stdio and SSE this exercises the
 * session-affine upstream connections). Each upstream's bundle is also served through
 * `/mcp/gateway` in direct mode (the suite sends no credential, so a loopback pass-through adds the
 * user's API key); a bundle is removed before the next upstream's is made, so the gateway serves
 * one at a time. Known gaps would be listed with their reasons in the baseline files beside this
 * script; there are none, and anything failing fails the run.
 *
 *   npm run test:conformance [-- --only 2025-11-25|2026-07-28] [-- --upstream stdio|sse|http]
 *                            [-- --endpoint bundle|gateway] [-- --scenario NAME]
 *
 * The suite needs Node 22: it lives in tools/node22, installed on demand (scripts/node22.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureNode22Tools, NODE22, TOOLS } from '../../scripts/node22.js';
import { startAuthProxy } from '../helpers/auth-proxy.js';
import { setupFixtureBundle } from '../helpers/fixture-bundle.js';
import { ROOT } from '../helpers/contract.js';
import { LOOPBACK_UPSTREAMS, startTestServer } from '../helpers/test-server.js';
import { startFixtureHttp } from '../helpers/upstreams.js';

const CLI = TOOLS.conformance;
const HERE = path.join(ROOT, 'test/conformance');

const RUNS = [
  { id: '2025-11-25', args: ['--requirements', '2025-11-25'] },
  { id: '2026-07-28', args: ['--requirements', '2026-07-28'] },
];

function run(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [CLI, ...args], { stdio: 'inherit', cwd: ROOT });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const { values } = parseArgs({
  options: { only: { type: 'string' }, scenario: { type: 'string' }, endpoint: { type: 'string' }, upstream: { type: 'string' } },
});
await ensureNode22Tools();
// Warm spares per stdio/SSE upstream: a scenario expects an elicitation within 600 ms of the call,
// less than a stdio process takes to start, and the suite starts several such callers at once. Twelve runs share one key within minutes: no rate limit in the way.
const t = await startTestServer({
  env: {
    ...LOOPBACK_UPSTREAMS,
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_UPSTREAM_AFFINE_SPARES: '4',
    TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000',
  },
});
let failed = 0;
const failures: string[] = [];
const closers: (() => Promise<void>)[] = [];
try {
  const upstreams = (['stdio', 'sse', 'http'] as const).filter((u) => !values.upstream || u === values.upstream);
  for (const over of upstreams) {
    const started = over === 'stdio' ? undefined : await startFixtureHttp(over);
    if (started) closers.push(() => started.stop());
    const fixture = await setupFixtureBundle(t.owner, t.url, {
      name: `conformance-${over}`,
      description: 'Conformance fixture tools',
      ...(started ? { upstreamUrl: started.url, upstreamTransport: over === 'sse' ? ('sse' as const) : ('streamable_http' as const) } : {}),
    });
    // The owner's gateway in direct mode serves every bundle: here just this fixture's, names unchanged.
    const proxy = await startAuthProxy(`${t.url}/mcp/gateway`, t.ownerKey);
    const endpoints = [
      { id: 'bundle', url: fixture.endpoint, shown: `${t.url}/mcp/bundle/<key>` },
      { id: 'gateway', url: proxy.url, shown: `${t.url}/mcp/gateway (direct mode, through ${proxy.url})` },
    ].filter((e) => !values.endpoint || e.id === values.endpoint);
    for (const endpoint of endpoints) {
      console.log(`\n${endpoint.id} endpoint, upstream over ${over}: ${endpoint.shown}`);
      for (const r of RUNS.filter((x) => !values.only || x.id === values.only)) {
        const out = fs.mkdtempSync(path.join(os.tmpdir(), `conformance-${over}-${endpoint.id}-${r.id}-`));
        const baseline = path.join(HERE, `baseline-${r.id}.yml`);
        // One scenario runs at the revision's wire version (a requirement set fixes its own scenarios).
        const selection = values.scenario ? ['--scenario', values.scenario, '--spec-version', r.id, '--force'] : r.args;
        const args = ['server', '--url', endpoint.url, ...selection, '-o', out];
        if (fs.existsSync(baseline) && !values.scenario) args.push('--expected-failures', baseline);
        console.log(`\n=== conformance ${over} ${endpoint.id} ${r.id} (results in ${out}) ===`);
        const code = await run(args);
        if (code !== 0) {
          failed += 1;
          failures.push(`${over} ${endpoint.id} ${r.id}`);
        }
      }
    }
    await proxy.close();
    const removed = await t.owner.delete(`/api/v1/bundles/${fixture.bundleId}`);
    if (removed.status !== 204) throw new Error(`removing the ${over} bundle: ${removed.status}`);
  }
  console.log(failures.length ? `\nFailed targets: ${failures.join('; ')}` : '\nEvery target passed.');
} finally {
  for (const close of closers) await close();
  await t.stop();
}
process.exit(failed ? 1 : 0);
