import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findOnPath, rootMounts } from './process-sandbox.js';

/**
 * How a generated MCP server is started: the code a model wrote is confined twice.
 *
 * 1. A jail (bubblewrap, when the host allows user namespaces): every namespace unshared, so no
 *    network at all (not even loopback: Toolgate, Redis and PostgreSQL on 127.0.0.1 are out of
 *    reach); a read-only root of /usr alone, the MCP SDK read-only, its own folder read-write, a
 *    private /tmp; no data directory, no master key, no admin socket (they are not mounted); an
 *    empty environment but PATH and HOME; limits from `prlimit` on memory (data segment), processes,
 *    file size and open files; and, when Toolgate runs as root, an unprivileged uid of its own
 *    (GENERATED_SERVER_UID).
 * 2. Node's permission model inside it: the code can read only its own folder and the SDK, write
 *    only its own folder, and start no process or worker thread.
 *
 * Network is never granted because a model asked for it: a design that says it needs the network
 * is deployed without it, and the job says so (an admin can register a server with network access
 * on purpose). Without bubblewrap only the permission model applies, and the launch says so
 * (`network: 'unrestricted'`).
 */
export interface GeneratedServerLaunch {
  command: string;
  args: string[];
  /** The server's own folder (its working directory). */
  cwd: string;
  /** How the server is confined: `bubblewrap` (the jail, no network), `unrestricted` (no jail available: the permission model only). */
  network: 'bubblewrap' | 'unrestricted';
}

/** The uid (and gid) a generated server runs as when Toolgate runs as root (the script sandbox's slots use 61000 and up). */
export const GENERATED_SERVER_UID = 61100;

/** Limits of a generated server's process (what `prlimit` sets; the heap is Node's own flag). */
export const GENERATED_SERVER_LIMITS = {
  /** Data segment (heap and other private writable memory) of the process. */
  dataBytes: 512 * 1024 * 1024,
  /** V8's old-generation heap, within the data segment. */
  heapMb: 256,
  processes: 64,
  fileBytes: 64 * 1024 * 1024,
  openFiles: 256,
} as const;

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
  const bwrap = findOnPath('bwrap');
  if (!bwrap) return bwrapProbe;
  const probe = spawnSync(bwrap, [...bwrapArgs(), process.execPath, '-e', '0'], { timeout: 10_000, stdio: 'ignore' });
  if (probe.status === 0) bwrapProbe = bwrap;
  return bwrapProbe;
}

/** The probe's jail: the smallest one that proves bubblewrap can unshare every namespace here. */
function bwrapArgs(): string[] {
  return ['--unshare-all', '--die-with-parent', '--new-session', ...rootMounts(), '--proc', '/proc', '--dev', '/dev', '--'];
}

/** Where node lives, bound read-only when it is outside /usr (nvm, a tarball install). */
function nodeMounts(): string[] {
  const dir = path.dirname(path.dirname(fs.realpathSync(process.execPath)));
  return dir === '/usr' || dir.startsWith('/usr/') ? [] : ['--ro-bind', dir, dir];
}

/** Makes a generated server's folder its own uid's (when Toolgate runs as root), so it can write there and nothing else. */
function handOver(folder: string, uid: number): void {
  const walk = (p: string): void => {
    fs.chownSync(p, uid, uid);
    if (fs.lstatSync(p).isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(folder);
}

/**
 * The command that starts the generated server in `folder` (entry `server.mjs`) with least
 * privilege: the jail described at the top of this file when bubblewrap works here, else the
 * permission model alone.
 */
export function generatedServerLaunch(folder: string, options: { entry?: string } = {}): GeneratedServerLaunch {
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
  const bwrap = networkIsolator();
  const prlimit = findOnPath('prlimit');
  const setpriv = findOnPath('setpriv');
  const asRoot = process.getuid?.() === 0;
  if (!bwrap || !prlimit || (asRoot && !setpriv)) return { command: process.execPath, args: node, cwd: own, network: 'unrestricted' };
  // As root, bubblewrap mounts as root (the data directory is root's alone) and the server then
  // drops to an unprivileged uid of its own inside the jail (setpriv: every capability goes with
  // the uid change). Otherwise a user namespace does the unsharing.
  const namespaces = asRoot
    ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
    : ['--unshare-all'];
  if (asRoot) handOver(own, GENERATED_SERVER_UID);
  const jail = [
    ...namespaces,
    '--die-with-parent',
    '--new-session',
    ...rootMounts(),
    ...nodeMounts(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...reachable(modules),
    '--ro-bind',
    modules,
    modules,
    ...reachable(own),
    '--bind',
    own,
    own,
    '--chdir',
    own,
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/tmp',
    ...(asRoot ? ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID'] : []),
    '--',
    ...(asRoot ? [setpriv!, `--reuid=${GENERATED_SERVER_UID}`, `--regid=${GENERATED_SERVER_UID}`, '--clear-groups', '--'] : []),
  ];
  const limits = [
    `--data=${GENERATED_SERVER_LIMITS.dataBytes}`,
    `--nproc=${GENERATED_SERVER_LIMITS.processes}`,
    `--fsize=${GENERATED_SERVER_LIMITS.fileBytes}`,
    `--nofile=${GENERATED_SERVER_LIMITS.openFiles}`,
    '--core=0',
    '--',
  ];
  return { command: prlimit, args: [...limits, bwrap, ...jail, process.execPath, ...node], cwd: own, network: 'bubblewrap' };
}

/**
 * The folders above `p` inside the jail, made traversable (0755) before `p` is bound: bubblewrap
 * would otherwise copy their modes, and a data directory is 0700.
 */
function reachable(p: string): string[] {
  const args: string[] = [];
  const parts = p.split(path.sep).filter(Boolean);
  for (let i = 1; i < parts.length; i++) args.push('--perms', '0755', '--dir', path.sep + parts.slice(0, i).join(path.sep));
  return args;
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
