import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findOnPath, rootMounts } from './process-sandbox.js';
import { handOver, jailCommand, JAIL_LIMITS, nodeMounts, type JailLimits, type JailSpec, type JailTools } from './jail.js';

/**
 * How a generated MCP server is started: the code a model wrote is confined twice.
 *
 * 1. The jail of every sandboxed server (jail.ts): its own network namespace whose only way out,
 *    once an admin approved a host list, is Toolgate's egress proxy; /usr read-only, the MCP SDK
 *    read-only, its own folder read-write, a private /tmp; no data directory, master key or admin
 *    socket; a minimal environment; memory, CPU-time, process, file-size and open-file limits; and,
 *    when Toolgate runs as root, an unprivileged uid derived from `TOOLGATE_SANDBOX_UID`.
 * 2. Node's permission model inside it: the code can read only its own folder and the SDK, write
 *    only its own folder, and start no process or worker thread.
 *
 * Network is never granted because a model asked for it: the hosts a design asks for become a
 * request an admin approves (or not) on the server; until then the server has no network. Without
 * bubblewrap only the permission model applies, and the launch says so (`network: 'unrestricted'`).
 */
export interface GeneratedServerLaunch {
  command: string;
  args: string[];
  /** The server's own folder (its working directory). */
  cwd: string;
  /** How the server is confined: `bubblewrap` (the jail), `unrestricted` (no jail available: the permission model only). */
  network: 'bubblewrap' | 'unrestricted';
  /** The environment to start `command` with (the jail's fixed variables; empty without a jail). */
  env: Record<string, string>;
  /** The node command inside the jail (what a deployment registers with `sandboxed: true`). */
  inner: { command: string; args: string[] };
}

/** The uid (and gid) generated servers are validated as when Toolgate runs as root: 100 above `TOOLGATE_SANDBOX_UID` (the script sandbox's slots use the first ones). */
export function generatedServerUid(sandboxUid: number): number {
  return sandboxUid + 100;
}

/** Limits of a generated server's process (what `prlimit` sets; the heap is Node's own flag). */
export const GENERATED_SERVER_LIMITS = {
  ...JAIL_LIMITS,
  /** V8's old-generation heap, within the data segment. */
  heapMb: 256,
} as const;

/** The folder of the MCP SDK package (the generated server imports it by file URL). */
export function sdkPackageDir(): string {
  return packageDir('@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/client/index.js');
}

function packageDir(name: string, entry: string): string {
  const require = createRequire(import.meta.url);
  let dir = path.dirname(require.resolve(entry));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === name)
      return fs.realpathSync(dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`${name} is not installed`);
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
  const bwrap = findOnPath('bwrap');
  if (!bwrap) return bwrapProbe;
  const probe = spawnSync(bwrap, [...bwrapArgs(), process.execPath, '-e', '0'], { timeout: 10_000, stdio: 'ignore' });
  if (probe.status === 0) bwrapProbe = bwrap;
  return bwrapProbe;
}

/** The probe's jail: the smallest one that proves bubblewrap can unshare every namespace here. */
function bwrapArgs(): string[] {
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    ...rootMounts(),
    ...nodeMounts(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--',
  ];
}

/** The programs the jail needs, when this host has them all (bubblewrap working, prlimit, setpriv as root). */
export function jailTools(): JailTools | undefined {
  const bwrap = networkIsolator();
  const prlimit = findOnPath('prlimit');
  const setpriv = findOnPath('setpriv');
  if (!bwrap || !prlimit || (process.getuid?.() === 0 && !setpriv)) return undefined;
  return { bwrap, prlimit, setpriv };
}

/**
 * A Node preload (for `NODE_OPTIONS`) that sends Node 20's `fetch` through the egress proxy
 * (undici's EnvHttpProxyAgent reads HTTP_PROXY and HTTPS_PROXY); undefined when undici is not
 * installed. The undici package must be readable in the jail (`egressReadable`).
 */
export function egressPreload(): string | undefined {
  try {
    const entry = pathToFileURL(path.join(packageDir('undici', 'undici'), 'index.js')).href;
    const code = `import{EnvHttpProxyAgent as A,setGlobalDispatcher as s}from${JSON.stringify(entry)};s(new A());`;
    return `--import=data:text/javascript,${encodeURIComponent(code)}`;
  } catch {
    return undefined;
  }
}

/** What a sandboxed node process must read to use the egress proxy (the undici package). */
export function egressReadable(): string[] {
  try {
    return [packageDir('undici', 'undici')];
  } catch {
    return [];
  }
}

/**
 * The command that starts the generated server in `folder` (entry `server.mjs`) with least
 * privilege: the jail described at the top of this file when bubblewrap works here, else the
 * permission model alone. `egressSocket`: the egress proxy's socket for an approved host list.
 */
export function generatedServerLaunch(
  folder: string,
  options: { uid: number; entry?: string; egressSocket?: string; limits?: Partial<JailLimits> },
): GeneratedServerLaunch {
  const own = fs.realpathSync(folder);
  const modules = sdkModulesDir();
  const node = [
    permissionFlag(),
    `--allow-fs-read=${own}`,
    `--allow-fs-read=${modules}`,
    `--allow-fs-write=${own}`,
    `--max-old-space-size=${GENERATED_SERVER_LIMITS.heapMb}`,
    // Keeps stderr free of the experimental-feature banner (stderr tails go into job logs).
    '--no-warnings',
    path.join(own, options.entry ?? 'server.mjs'),
  ];
  const inner = { command: process.execPath, args: node };
  const tools = jailTools();
  if (!tools) return { command: process.execPath, args: node, env: {}, cwd: own, network: 'unrestricted', inner };
  const jailed = jailCommand(generatedServerJail(own, inner, options), tools);
  return { ...jailed, cwd: own, network: 'bubblewrap', inner };
}

/** The jail of the generated server in `own` (its folder handed over to the uid when Toolgate runs as root). */
export function generatedServerJail(
  own: string,
  inner: { command: string; args: readonly string[] },
  options: { uid: number; egressSocket?: string; limits?: Partial<JailLimits>; env?: Readonly<Record<string, string>> },
): JailSpec {
  if (process.getuid?.() === 0) handOver(own, options.uid);
  const preload = options.egressSocket ? egressPreload() : undefined;
  return {
    command: inner.command,
    args: inner.args,
    cwd: own,
    writable: [own],
    readable: [sdkModulesDir()],
    env: { ...options.env, ...(preload ? { NODE_OPTIONS: preload } : {}) },
    uid: options.uid,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.egressSocket ? { egressSocket: options.egressSocket } : {}),
  };
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
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    cwd: launch.cwd,
    env: launch.env,
    stderr: 'pipe',
  });
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
