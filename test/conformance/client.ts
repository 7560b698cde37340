/**
 * Runs the official MCP conformance suite's client scenarios with Toolgate's upstream connector
 * as the client under test (`npm run -s conformance:client -- <server-url>`, see
 * scripts/conformance-client.ts), for the 2025-11-25 and 2026-07-28 requirements and the
 * client-credentials extension scenarios. One Toolgate serves every scenario (named to the client
 * script by TOOLGATE_URL and TOOLGATE_KEY). A known gap would be listed with its reason in a
 * baseline-client-*.yml beside this script; there is none: every required scenario passes, and
 * the unscored extensions (DPoP, enterprise-managed authorization, workload identity) are reported
 * by the suite without failing the run. CI runs it (.ci/run).
 *
 *   npm run test:conformance:client [-- --only 2025-11-25|2026-07-28|extensions] [-- --scenario NAME]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureNode22Tools, NODE22, TOOLS } from '../../scripts/node22.js';
import { ROOT } from '../helpers/contract.js';
import { LOOPBACK_UPSTREAMS, startTestServer } from '../helpers/test-server.js';

const HERE = path.join(ROOT, 'test/conformance');
const COMMAND = 'npm run -s conformance:client --';
const RUNS = [
  { id: '2025-11-25', args: ['--requirements', '2025-11-25'] },
  { id: '2026-07-28', args: ['--requirements', '2026-07-28'] },
  { id: 'extensions', args: ['--scenario', 'auth/client-credentials-basic'] },
  { id: 'extensions-jwt', args: ['--scenario', 'auth/client-credentials-jwt'] },
];

function run(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    // A generous timeout: every scenario starts a client process, many at once on a small machine.
    const child = spawn(NODE22, [TOOLS.conformance, 'client', '--command', COMMAND, '--timeout', '180000', ...args], {
      stdio: 'inherit',
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const { values } = parseArgs({ options: { only: { type: 'string' }, scenario: { type: 'string' } } });
await ensureNode22Tools();
const started = Date.now();
// The suite's authorization servers expect the client ID metadata document URL its own clients use.
const t = await startTestServer({
  env: {
    ...LOOPBACK_UPSTREAMS,
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000',
    TOOLGATE_UPSTREAM_CLIENT_METADATA_URL: 'https://conformance-test.local/client-metadata.json',
  },
});
const env = { TOOLGATE_URL: t.url, TOOLGATE_KEY: t.ownerKey };
const failures: string[] = [];
try {
  for (const r of RUNS) {
    if (values.only && !r.id.startsWith(values.only)) continue;
    const baseline = path.join(HERE, `baseline-client-${r.id}.yml`);
    const args = values.scenario ? ['--scenario', values.scenario] : [...r.args];
    if (!values.scenario && fs.existsSync(baseline) && fs.readFileSync(baseline, 'utf8').trim()) args.push('--expected-failures', baseline);
    process.stderr.write(`\n=== conformance client ${values.scenario ?? r.id} ===\n`);
    if ((await run(args, env)) !== 0) failures.push(values.scenario ?? r.id);
    if (values.scenario) break;
  }
} finally {
  await t.stop();
}
process.stderr.write(
  `\nconformance client: ${failures.length ? `FAILED (${failures.join(', ')})` : 'passed'} in ${Math.round((Date.now() - started) / 1000)} s\n`,
);
process.exit(failures.length ? 1 : 0);
