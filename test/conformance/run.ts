/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against a bundle
 * endpoint in front of our fixture upstream (over Streamable HTTP, registered through the REST API, served through the
 * real pool), for the 2025-11-25 requirements and the 2026-07-28 scenarios, then against
 * `/mcp/gateway` in direct mode serving that bundle (the suite sends no credential, so a loopback
 * pass-through adds the user's API key). Known gaps are listed with their reasons in the baseline
 * files beside this script (the same files for both endpoints: the gateway has no gaps of its
 * own); anything else failing fails the run.
 *
 *   npm run test:conformance [-- --only 2025-11-25|2026-07-28] [-- --endpoint bundle|gateway] [-- --scenario NAME]
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

const { values } = parseArgs({ options: { only: { type: 'string' }, scenario: { type: 'string' }, endpoint: { type: 'string' } } });
await ensureNode22Tools();
const t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_LOG_LEVEL: 'warn' } });
let failed = 0;
const closers: (() => Promise<void>)[] = [];
try {
  // The suite runs scenarios concurrently, and its input-required scenarios need each upstream
  // request told to its own caller: the fixture is reached over Streamable HTTP.
  const upstream = await startFixtureHttp('http');
  closers.push(() => upstream.stop());
  const fixture = await setupFixtureBundle(t.owner, t.url, {
    name: 'conformance',
    description: 'Conformance fixture tools',
    upstreamUrl: upstream.url,
  });
  // The owner's gateway in direct mode serves every bundle: here just the fixture's, names unchanged.
  const proxy = await startAuthProxy(`${t.url}/mcp/gateway`, t.ownerKey);
  closers.push(() => proxy.close());
  const endpoints = [
    { id: 'bundle', url: fixture.endpoint, shown: `${t.url}/mcp/bundle/<key>` },
    { id: 'gateway', url: proxy.url, shown: `${t.url}/mcp/gateway (direct mode, through ${proxy.url})` },
  ].filter((e) => !values.endpoint || e.id === values.endpoint);
  for (const endpoint of endpoints) {
    console.log(`\n${endpoint.id} endpoint: ${endpoint.shown}`);
    for (const r of RUNS.filter((x) => !values.only || x.id === values.only)) {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), `conformance-${endpoint.id}-${r.id}-`));
      const baseline = path.join(HERE, `baseline-${r.id}.yml`);
      // One scenario runs at the revision's wire version (a requirement set fixes its own scenarios).
      const selection = values.scenario ? ['--scenario', values.scenario, '--spec-version', r.id, '--force'] : r.args;
      const args = ['server', '--url', endpoint.url, ...selection, '-o', out];
      if (fs.existsSync(baseline) && !values.scenario) args.push('--expected-failures', baseline);
      console.log(`\n=== conformance ${endpoint.id} ${r.id} (results in ${out}) ===`);
      const code = await run(args);
      if (code !== 0) failed += 1;
    }
  }
} finally {
  for (const close of closers) await close();
  await t.stop();
}
process.exit(failed ? 1 : 0);
