import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './contract.js';
import type { ApiClient } from './api-client.js';

/** Our own upstream MCP server (test/fixtures/fixture-mcp-server.ts). */
export const FIXTURE_PATH = path.join(ROOT, 'test/fixtures/fixture-mcp-server.ts');
export const EVERYTHING_BIN = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_BIN = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** Registration body (stdio part) that runs the fixture. */
export function fixtureStdio(): { command: string; args: string[]; cwd: string } {
  return { command: process.execPath, args: ['--import', 'tsx', FIXTURE_PATH, 'stdio'], cwd: ROOT };
}

/** A free TCP port on loopback (closed again, so a later bind may take it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs` with the last value). */
export async function waitFor<T>(what: string, check: () => Promise<T> | T, timeoutMs = 20000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      last = await check();
      if (last) return last as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A process started by a test (an HTTP upstream); `stop()` kills it and waits for its exit. */
export interface ChildServer {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function track(child: ChildProcess, port: number, url: string): ChildServer {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    port,
    url,
    async stop(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

async function waitForOutput(child: ChildProcess, pattern: RegExp, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${seen.slice(-500)}`)), 20000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before it listened: ${seen.slice(-500)}`));
    });
  });
}

/** Starts the fixture over Streamable HTTP (`/mcp`) or legacy SSE (`/sse`) on 127.0.0.1. */
export async function startFixtureHttp(mode: 'http' | 'sse', port?: number): Promise<ChildServer> {
  const p = port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE_PATH, mode, String(p)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForOutput(child, /listening \d+/, `fixture (${mode})`).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
  return track(child, p, `http://127.0.0.1:${p}${mode === 'http' ? '/mcp' : '/sse'}`);
}

/** Starts @modelcontextprotocol/server-everything over Streamable HTTP (it reads PORT); we talk to it on loopback only. */
export async function startEverythingHttp(): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForOutput(child, /(running|listening) on port/i, 'server-everything (streamableHttp)').catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
  return track(child, port, `http://127.0.0.1:${port}/mcp`);
}

/** Pids of our descendant processes whose command line contains `marker`. */
export function descendantPids(marker: string): number[] {
  const parents = new Map<number, number>();
  const cmdlines = new Map<number, string>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (state === 'Z') continue; // reaped soon; not running
      parents.set(Number(entry), ppid);
      cmdlines.set(Number(entry), fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // the process went away while we looked
    }
  }
  const isDescendant = (pid: number): boolean => {
    for (let p = parents.get(pid), hops = 0; p !== undefined && hops < 50; p = parents.get(p), hops += 1)
      if (p === process.pid) return true;
    return false;
  };
  return [...cmdlines.entries()].filter(([pid, cmd]) => cmd.includes(marker) && isDescendant(pid)).map(([pid]) => pid);
}

/** Registers a server and returns its id (asserting 201). */
export async function register(api: ApiClient, body: Record<string, unknown>): Promise<any> {
  const res = await api.post('/api/v1/servers', body);
  if (res.status !== 201) throw new Error(`register ${String(body.name)}: ${res.status} ${res.text}`);
  return res.body;
}

/** Waits until the server is connected and its catalog holds at least `minTools` tools. */
export async function waitConnected(api: ApiClient, id: string, minTools = 1, timeoutMs = 30000): Promise<any> {
  return waitFor(
    `server ${id} connected`,
    async () => {
      const res = await api.get(`/api/v1/servers/${id}`);
      return res.body.status === 'connected' && res.body.tool_count >= minTools ? res.body : false;
    },
    timeoutMs,
  );
}
