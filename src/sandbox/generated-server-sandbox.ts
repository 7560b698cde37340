import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * How a generated MCP server is started: `node` under its permission model, so that the code a
 * model wrote can read only its own folder and the MCP SDK, write only its own folder, and start no
 * process or worker thread. Its environment is the MCP SDK's safe default (PATH, HOME, USER, …):
 * never the gateway's `TOOLGATE_*` variables or master key.
 *
 * What Node 20's permission model cannot restrict: the network (sockets, `fetch`), and native
 * addons loaded through a path it may read (none are in its folder: the gateway writes only `.mjs`
 * and `.json` files there). Network isolation therefore comes from bubblewrap (`--unshare-net`)
 * when the host has it and the design says the server needs no network; without bubblewrap a
 * server that should have no network still could open sockets, and the job says so in its log.
 */
export interface GeneratedServerLaunch {
  command: string;
  args: string[];
  /** The server's own folder (its working directory). */
  cwd: string;
  /** How network access is limited: `bubblewrap` (none), `none` (allowed by design), `unrestricted` (no isolation available). */
  network: 'bubblewrap' | 'none' | 'unrestricted';
}

/** The folder of the MCP SDK package (the generated server imports it by file URL). */
export function sdkPackageDir(): string {
  const require = createRequire(import.meta.url);
  let dir = path.dirname(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (
      fs.existsSync(manifest) &&
      (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === '@modelcontextprotocol/sdk'
    )
      return fs.realpathSync(dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('@modelcontextprotocol/sdk is not installed');
    dir = parent;
  }
}

/**
 * The `node_modules` folder that holds the SDK and its dependencies (read-only for the server).
 * The SDK's own dependencies are either nested under it or hoisted beside it.
 */
export function sdkModulesDir(): string {
  const sdk = sdkPackageDir();
  // …/node_modules/@modelcontextprotocol/sdk → …/node_modules
  return path.dirname(path.dirname(sdk));
}

/** `file:` URL of an ES module of the SDK (`server/index.js` → …/dist/esm/server/index.js). */
export function sdkModuleUrl(subpath: string): string {
  return pathToFileURL(path.join(sdkPackageDir(), 'dist', 'esm', subpath)).href;
}

/** Node's flag for the permission model: `--permission` (22.13+) or `--experimental-permission` (20). */
export function permissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

let bwrapProbe: string | null | undefined;

/**
 * bubblewrap's path when it can start a process in a new network namespace here (probed once), or
 * null. Containers without user namespaces fail the probe, and generated servers then run without
 * network isolation.
 */
export function networkIsolator(): string | null {
  if (bwrapProbe !== undefined) return bwrapProbe;
  bwrapProbe = null;
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) {
    const bwrap = path.join(dir, 'bwrap');
    if (!fs.existsSync(bwrap)) continue;
    const probe = spawnSync(bwrap, [...bwrapArgs(), process.execPath, '-e', '0'], { timeout: 10_000, stdio: 'ignore' });
    if (probe.status === 0) bwrapProbe = bwrap;
    break;
  }
  return bwrapProbe;
}

/** The whole file system as it is (node's permission model narrows it), no network, dies with its parent. */
function bwrapArgs(): string[] {
  return ['--dev-bind', '/', '/', '--unshare-net', '--die-with-parent', '--new-session', '--'];
}

/**
 * The command that starts the generated server in `folder` (entry `server.mjs`) with least
 * privilege. `network: false` adds bubblewrap's empty network namespace when available.
 */
export function generatedServerLaunch(folder: string, options: { network: boolean; entry?: string }): GeneratedServerLaunch {
  const own = fs.realpathSync(folder);
  const node = [
    permissionFlag(),
    `--allow-fs-read=${own}`,
    `--allow-fs-read=${sdkModulesDir()}`,
    `--allow-fs-write=${own}`,
    // Keeps stderr free of the experimental-feature banner (stderr tails go into job logs).
    '--no-warnings',
    path.join(own, options.entry ?? 'server.mjs'),
  ];
  const isolator = options.network ? null : networkIsolator();
  if (isolator) return { command: isolator, args: [...bwrapArgs(), process.execPath, ...node], cwd: own, network: 'bubblewrap' };
  return { command: process.execPath, args: node, cwd: own, network: options.network ? 'none' : 'unrestricted' };
}

/** A running generated server with an MCP client on it. */
export interface GeneratedServerSession {
  readonly client: Client;
  /** The last few kilobytes the server wrote to stderr (why it crashed, typically). */
  stderrTail(): string;
  close(): Promise<void>;
}

const STDERR_TAIL = 4096;

/**
 * Starts a generated server as its deployment will run it and connects an MCP client to it
 * (initialize) within `timeoutMs`. Throws with the server's stderr tail when it does not start.
 */
export async function startGeneratedServer(
  launch: GeneratedServerLaunch,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<GeneratedServerSession> {
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, cwd: launch.cwd, env: {}, stderr: 'pipe' });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const client = new Client({ name: 'toolgate-generation-validator', version: '0.1.0' });
  const close = async (): Promise<void> => {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  };
  try {
    await client.connect(transport, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (err) {
    await close();
    // Give the pipe a moment to deliver what the process said before it died.
    await new Promise((r) => setTimeout(r, 50));
    const said = tail.trim();
    throw new Error(`${err instanceof Error ? err.message : String(err)}${said ? `; stderr: ${said.slice(-1500)}` : ''}`);
  }
  return { client, stderrTail: () => tail, close };
}
