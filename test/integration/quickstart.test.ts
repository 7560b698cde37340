import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureNode22Tools } from '../../scripts/node22.js';
import { ApiClient } from '../helpers/api-client.js';
import { ROOT } from '../helpers/contract.js';
import { alive, descendants, run, spawnServer, type ServerProcess } from '../helpers/processes.js';
import { dropSchema, TEST_DATABASE_URL } from '../helpers/test-server.js';
import { freePort } from '../helpers/upstreams.js';

/**
 * The README's quick start, run literally and in its order: the commands are read from the
 * README (so the two cannot drift apart). The only liberties: `npm install` is not re-run (the
 * checkout under test is installed), the port 8080 becomes a free one, the data directory (or
 * PostgreSQL schema) is a fresh one given through the environment, and the line where a person
 * pastes the printed key gets the printed key.
 */

/** The shell commands of the README's "Quick start" section, in order (continuations joined, comments dropped). */
function quickStartCommands(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Quick start');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const commands: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, '');
    for (const raw of joined.split('\n')) {
      const line = raw.replace(/\s+#\s[^'"]*$/, '').trim();
      if (line && !line.startsWith('#')) commands.push(line);
    }
  }
  return commands;
}

function stopped(server: ServerProcess, signal: NodeJS.Signals): Promise<{ code: number | null; tree: number[] }> {
  const tree = descendants(server.child.pid!);
  server.child.kill(signal);
  return server.exited.then((code) => ({ code, tree }));
}

async function gone(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 50 && pids.some(alive); i += 1) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(alive);
}

describe('README quick start, followed literally', function () {
  this.timeout(900000);
  const commands = quickStartCommands();
  let home: string;
  let dataDir: string;
  let env: Record<string, string>;
  let port: number;
  const schema = `tg_quickstart_${process.pid}`;
  let server: ServerProcess | undefined;
  let key = '';

  const literal = (command: string) => command.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
  const bash = (script: string) => run('bash', ['-c', `set -eo pipefail\n${literal(script)}`], env, 600_000);

  before(async function () {
    this.timeout(900000);
    await ensureNode22Tools(); // the Inspector step needs them; installing is not what is timed here
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-qs-home-'));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-qs-data-'));
    port = await freePort();
    env = {
      HOME: home,
      PORT: String(port),
      TOOLGATE_DATA_DIR: dataDir,
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL, TOOLGATE_DB_SCHEMA: schema } : {}),
    };
  });
  after(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      for (const pid of descendants(server.child.pid!)) process.kill(pid, 'SIGKILL');
    }
    if (TEST_DATABASE_URL) await dropSchema(TEST_DATABASE_URL, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('has the steps in the order the test follows', () => {
    expect(commands[0]).to.equal('npm install');
    expect(commands[1]).to.equal('npm start');
    expect(commands[2]).to.match(/^npm run toolgate -- bootstrap --email \S+/);
    expect(commands[3]).to.match(/^export TOOLGATE_KEY=tg_usr_live_\.\.\.$/);
    expect(commands.some((c) => c.startsWith('npm run inspector -- --cli'))).to.equal(true);
  });

  it('1-2: npm start, then bootstrap in a second terminal while it runs, prints a key', async () => {
    server = await spawnServer('npm', ['start'], env);
    const { code, stdout, stderr } = await bash(commands[2]!);
    expect(code).to.equal(0, stderr);
    key = /\b(tg_usr_live_[A-Za-z0-9_-]+)/.exec(stdout)![1]!;
  });

  it('3-6: the key works; a real MCP server is registered, bundled, and reached by the MCP Inspector', async () => {
    const rest = commands.slice(3).map((c) => (c.startsWith('export TOOLGATE_KEY=') ? `export TOOLGATE_KEY=${key}` : c));
    const { code, stdout, stderr } = await bash(rest.join('\n'));
    expect(code).to.equal(0, `${stdout}\n${stderr}`);
    expect(stdout).to.include('"email":"you@example.com"').and.to.include('"role":"owner"');
    expect(stdout).to.match(/\becho\b.*\bget-sum\b|\bget-sum\b.*\becho\b/);
    expect(stdout).to.match(new RegExp(`MCP endpoint: http://127\\.0\\.0\\.1:${port}/mcp/bundle/\\S+`));
    expect(stdout).to.match(/"name": "echo"/); // Inspector tools/list
    expect(stdout).to.match(/Echo: hello/); // Inspector tools/call through the bundle to server-everything
  });

  it('SIGTERM to the npm start process stops the server gracefully and leaves no process behind', async () => {
    const { code, tree } = await stopped(server!, 'SIGTERM');
    expect(tree.length).to.be.greaterThanOrEqual(2); // the server and its stdio upstream, at least
    expect(code).to.equal(0);
    expect(await gone(tree)).to.deep.equal([]);
    expect(server!.logs.some((l) => l.msg === 'stopped')).to.equal(true);
  });

  it('after a restart the key, the server and the bundle are still there; SIGINT stops it the same way', async () => {
    server = await spawnServer('npm', ['start'], env);
    const step3 = commands.slice(
      3,
      commands.findIndex((c) => c.startsWith('SERVER_ID=')),
    );
    const again = step3.map((c) => (c.startsWith('export TOOLGATE_KEY=') ? `export TOOLGATE_KEY=${key}` : c));
    const { code, stdout, stderr } = await bash(again.join('\n'));
    expect(code).to.equal(0, stderr);
    expect(stdout).to.include('"email":"you@example.com"');
    const bundles = await new ApiClient(server.url, key).get('/api/v1/bundles');
    expect(bundles.body.items.map((b: { name: string }) => b.name)).to.deep.equal(['demo']);
    const stop = await stopped(server, 'SIGINT');
    expect(stop.code).to.equal(0);
    expect(await gone(stop.tree)).to.deep.equal([]);
  });
});
