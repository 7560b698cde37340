import fs from 'node:fs';
import path from 'node:path';
import { rootMounts } from './process-sandbox.js';

/**
 * The jail every long-running sandboxed process runs in (generated servers, and stdio upstreams an
 * admin marks `sandboxed`): bubblewrap with the IPC, PID, network, UTS (and cgroup) namespaces
 * unshared; a read-only root of /usr alone plus the folders the process needs; its own folder
 * read-write; a private, size-limited /tmp as HOME; no data directory, master key or admin socket
 * (nothing is mounted that is not listed here); a fixed minimal environment (PATH, HOME, LANG and,
 * with network, the proxy variables) plus the server's own variables, which cannot replace them; `prlimit` limits on memory, CPU time, processes, file size and open files; and, when
 * Toolgate runs as root, an unprivileged uid of its own (bubblewrap builds the jail as root, then
 * `setpriv` drops to the uid, and every capability goes with the uid change).
 *
 * Network: the private namespace has only a loopback interface. With an egress socket, a small
 * forwarder (Node, started first inside the jail) listens on 127.0.0.1:EGRESS_PORT there and
 * passes each connection to the socket, where Toolgate's egress proxy decides (egress-proxy.ts);
 * the process gets HTTP_PROXY, HTTPS_PROXY and ALL_PROXY pointing at it. Without one, no network.
 */

/** Limits of one sandboxed process (what `prlimit` sets). */
export interface JailLimits {
  /** Data segment: heap, anonymous mappings; what a 4 GiB allocation runs into. */
  dataBytes: number;
  /** CPU seconds over the process's life; past it the kernel ends it (SIGXCPU, then SIGKILL). */
  cpuSeconds: number;
  /** Processes and threads of its uid. */
  processes: number;
  /** Largest file it may write. */
  fileBytes: number;
  openFiles: number;
  /** Size of its private /tmp (its HOME). */
  tmpBytes: number;
}

/** The limits of sandboxed servers (docs/security.md lists them). */
export const JAIL_LIMITS: JailLimits = {
  dataBytes: 512 * 1024 * 1024,
  cpuSeconds: 3600,
  processes: 64,
  fileBytes: 64 * 1024 * 1024,
  openFiles: 256,
  tmpBytes: 256 * 1024 * 1024,
};

/** The port the forwarder listens on inside the jail (the sandbox's own loopback; nothing else is there). */
export const EGRESS_PORT = 3128;
/** Where the egress socket appears inside the jail. */
const EGRESS_SOCKET = '/run/toolgate/egress.sock';

export interface JailSpec {
  /** Absolute path of the program (inside a mounted folder). */
  command: string;
  args: readonly string[];
  /** Working directory (mounted read-write when listed in `writable`, else read-only). */
  cwd: string;
  /** Folders bound read-write at the same path. */
  writable: readonly string[];
  /** Folders or files bound read-only at the same path. */
  readable: readonly string[];
  /** The server's own variables, added to the fixed minimal environment. */
  env?: Readonly<Record<string, string>>;
  /** The uid (and gid) it runs as when Toolgate runs as root. */
  uid: number;
  limits?: Partial<JailLimits>;
  /** The egress proxy's socket for this process; absent: no network at all. */
  egressSocket?: string;
}

export interface JailTools {
  bwrap: string;
  prlimit: string;
  /** Needed when Toolgate runs as root (the uid change). */
  setpriv: string | undefined;
}

/** The fixed environment of a sandboxed process (before its own variables). */
export function jailEnvironment(egress: boolean): Record<string, string> {
  const env: Record<string, string> = { PATH: jailPath(), HOME: '/tmp', LANG: 'C.UTF-8' };
  if (egress) {
    const proxy = `http://127.0.0.1:${EGRESS_PORT}`;
    for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) env[k] = proxy;
    env.NO_PROXY = '';
    env.no_proxy = '';
    // Node 22.21+ and 24.5+ make fetch and http honour the variables with this; Node 20 ignores it.
    env.NODE_USE_ENV_PROXY = '1';
  }
  return env;
}

function jailPath(): string {
  const nodeBin = path.dirname(fs.realpathSync(process.execPath));
  return nodeBin === '/usr/bin' || nodeBin === '/bin' ? '/usr/bin:/bin' : `/usr/bin:/bin:${nodeBin}`;
}

/** Where node lives, bound read-only when it is outside /usr (nvm, a tarball install). */
export function nodeMounts(): string[] {
  const dir = path.dirname(path.dirname(fs.realpathSync(process.execPath)));
  return dir === '/usr' || dir.startsWith('/usr/') ? [] : ['--ro-bind', dir, dir];
}

/**
 * The folders above `p` inside the jail, made traversable (0755) before `p` is bound: bubblewrap
 * would otherwise copy their modes, and a data directory is 0700.
 */
export function reachable(p: string): string[] {
  const args: string[] = [];
  const parts = p.split(path.sep).filter(Boolean);
  for (let i = 1; i < parts.length; i++) args.push('--perms', '0755', '--dir', path.sep + parts.slice(0, i).join(path.sep));
  return args;
}

/** The forwarder inside the jail: 127.0.0.1:port → the egress socket; then it runs the command and ends with it. */
const FORWARDER = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socketPath, port, ...command] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(socketPath);
  c.on('error', () => u.destroy());
  u.on('error', () => c.destroy());
  c.pipe(u).pipe(c);
});
server.on('error', (e) => { process.stderr.write('egress forwarder: ' + e.message + '\\n'); process.exit(70); });
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
  child.on('error', (e) => { process.stderr.write('could not start ' + command[0] + ': ' + e.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGXCPU' ? 152 : 137)));
});
`;

/** Variables a spawner may add on its own (the MCP SDK's safe defaults): removed inside unless the jail sets them. */
const SPAWNER_DEFAULTS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** How to start a jailed process: its command line, and the exact environment to start it with. */
export interface JailCommand {
  command: string;
  args: string[];
  /**
   * The environment to spawn `command` with: the jail's fixed variables and the server's own. It
   * travels through the process environment, never the command line (values may be secrets, and a
   * command line is visible to every user of the host). Inside, the jail keeps exactly these.
   */
  env: Record<string, string>;
}

/** The command line (`prlimit … bwrap … -- [setpriv …] [forwarder] command`) that runs `spec` in the jail. */
export function jailCommand(spec: JailSpec, tools: JailTools): JailCommand {
  const limits = { ...JAIL_LIMITS, ...spec.limits };
  const asRoot = process.getuid?.() === 0;
  if (asRoot && !tools.setpriv) throw new Error('setpriv is needed to run a sandbox as root');
  // As root, bubblewrap mounts as root (the data directory is root's alone) and the process then
  // drops to its own uid inside the jail. Otherwise a user namespace does the unsharing.
  const namespaces = asRoot
    ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
    : ['--unshare-all'];
  const mounts: string[] = [];
  for (const dir of spec.readable) mounts.push(...reachable(dir), '--ro-bind', dir, dir);
  for (const dir of spec.writable) mounts.push(...reachable(dir), '--bind', dir, dir);
  // The environment reaches prlimit and bubblewrap (root, outside the jail) too: no variable that
  // steers the dynamic loader passes.
  const own = Object.fromEntries(Object.entries(spec.env ?? {}).filter(([k]) => !k.startsWith('LD_') && k !== 'GCONV_PATH'));
  const env = { ...own, ...jailEnvironment(!!spec.egressSocket) };
  const unset = SPAWNER_DEFAULTS.filter((k) => !(k in env)).flatMap((k) => ['--unsetenv', k]);
  const jail = [
    ...namespaces,
    '--die-with-parent',
    '--new-session',
    ...rootMounts(),
    ...nodeMounts(),
    ...sslMounts(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(limits.tmpBytes),
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    ...mounts,
    ...(spec.egressSocket ? ['--dir', path.dirname(EGRESS_SOCKET), '--bind', spec.egressSocket, EGRESS_SOCKET] : []),
    '--chdir',
    spec.cwd,
    ...unset,
    ...(asRoot ? ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID'] : []),
    '--',
    ...(asRoot ? [tools.setpriv!, `--reuid=${spec.uid}`, `--regid=${spec.uid}`, '--clear-groups', '--'] : []),
    ...(spec.egressSocket ? [process.execPath, '--max-old-space-size=32', '-e', FORWARDER, '--', EGRESS_SOCKET, String(EGRESS_PORT)] : []),
    spec.command,
    ...spec.args,
  ];
  const prlimit = [
    `--data=${limits.dataBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
  ];
  return { command: tools.prlimit, args: [...prlimit, tools.bwrap, ...jail], env };
}

/** CA certificates, read-only, so TLS through the egress proxy can verify the destination. */
function sslMounts(): string[] {
  const args: string[] = [];
  for (const p of ['/etc/ssl', '/etc/ca-certificates', '/etc/pki']) if (fs.existsSync(p)) args.push(...reachable(p), '--ro-bind', p, p);
  return args;
}

/** Makes `folder` (and everything in it) `uid`'s, so a process running as that uid can write there and nothing else. */
export function handOver(folder: string, uid: number): void {
  const walk = (p: string): void => {
    fs.chownSync(p, uid, uid);
    if (fs.lstatSync(p).isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(folder);
}
