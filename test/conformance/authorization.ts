/**
 * Runs the official MCP conformance suite's authorization-server scenarios
 * (`conformance authorization`: the metadata endpoint and the authorization code grant) against
 * Toolgate's issuer. The suite plays a public client pre-registered by an admin, with a loopback
 * redirect on its callback port; it prints the authorization URL and waits for its callback,
 * so this script plays the person: it follows the URL to the consent page, approves through the
 * REST API with the user's key, and sends the browser's last hop (the redirect back) to the
 * suite's callback. Any failing check fails the run.
 *
 *   npm run test:conformance:authorization
 *
 * The suite needs Node 22: it lives in tools/node22, installed on demand (scripts/node22.ts).
 */
import { spawn } from 'node:child_process';
import { ensureNode22Tools, NODE22, TOOLS } from '../../scripts/node22.js';
import { ROOT } from '../helpers/contract.js';
import { consentRequestId, decide } from '../helpers/oauth-client.js';
import { startTestServer } from '../helpers/test-server.js';

const PORT = 3000 + Math.floor(Math.random() * 2000);

await ensureNode22Tools();
const t = await startTestServer({ env: { TOOLGATE_LOG_LEVEL: 'warn' } });
let code = 1;
try {
  const client = await t.owner.post('/api/v1/oauth/clients', {
    name: 'MCP conformance suite',
    redirect_uris: [`http://127.0.0.1:${PORT}/callback`],
  });
  if (client.status !== 201) throw new Error(`registering the suite's client answered ${client.status}`);
  const args = [
    TOOLS.conformance,
    'authorization',
    '--url',
    t.url,
    '--client-id',
    client.body.client_id,
    '--resource',
    `${t.url}/mcp/gateway`,
    '--port',
    String(PORT),
  ];
  const child = spawn(NODE22, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    process.stdout.write(text);
    out += text;
    const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(out)?.[1];
    if (url && !answered) {
      answered = true;
      void (async () => {
        const back = await decide(t.owner, await consentRequestId(url));
        await fetch(back);
      })().catch((err: unknown) => {
        console.error('playing the person failed:', err);
        child.kill();
      });
    }
  });
  code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  if (code === 0 && !/authorization-code-grant/.test(out)) code = 1;
} finally {
  await t.stop();
}
process.exit(code);
