import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import type { EgressProxy, EgressSocket } from './egress-proxy.js';
import { egressPreload, egressReadable, generatedServerJail, generatedServerUid, jailTools } from './generated-server-sandbox.js';
import { jailCommand, type JailCommand, type JailLimits, type JailSpec, type JailTools } from './jail.js';

/**
 * Sandboxed stdio servers (the `sandboxed` option; generated servers and registry imports have it
 * on): each runs in the jail (jail.ts) with a uid of its own, kept while Toolgate runs, so the
 * process limit and file ownership are per server; its network is an egress socket of its own,
 * opened only once an admin approved a host list for it.
 */
export interface SandboxedServer {
  id: string;
  command: string;
  args: readonly string[];
  /** The server's own variables (its `env` and opened `secret_env`). */
  env: Readonly<Record<string, string>>;
  cwd: string | null;
  /** The host:port list an admin approved (empty: no network). */
  approvedHosts: readonly string[];
}

export interface ServerSandboxOptions {
  egress: EgressProxy;
  /** `TOOLGATE_SANDBOX_UID`: servers run as uid + 101 and up (uid + 100 validates generated servers). */
  sandboxUid: number;
  /** `<dataDir>/generated`: a server whose working directory is in it is a generated one (the SDK read-only, its folder read-write). */
  generatedRoot: string;
  logger: Logger;
  /** The jail's programs (tests pass their own); found on this host when absent. */
  tools?: () => JailTools | undefined;
  limits?: Partial<JailLimits>;
}

/** How many uids sandboxed servers use at most (then they are shared, oldest first). */
const UIDS = 1000;

export class ServerSandbox {
  private readonly uids = new Map<string, number>();
  private readonly approved = new Map<string, readonly string[]>();
  private readonly sockets = new Map<string, Promise<EgressSocket>>();

  constructor(private readonly options: ServerSandboxOptions) {}

  /** Whether this host can run sandboxed servers (bubblewrap works, prlimit, and setpriv as root). */
  available(): boolean {
    return (this.options.tools ?? jailTools)() !== undefined;
  }

  /** The jailed command of a server; throws when this host has no sandbox (the server then does not start). */
  async launch(server: SandboxedServer): Promise<JailCommand & { cwd: string }> {
    const tools = (this.options.tools ?? jailTools)();
    if (!tools) throw new Error('this host cannot run the sandbox (bubblewrap, prlimit and setpriv are needed)');
    const uid = this.uidOf(server.id);
    this.approved.set(server.id, [...server.approvedHosts]);
    const egress = server.approvedHosts.length ? (await this.socketOf(server.id)).path : undefined;
    const generated = server.cwd && path.resolve(server.cwd).startsWith(path.resolve(this.options.generatedRoot) + path.sep);
    let spec: JailSpec;
    if (generated) {
      spec = generatedServerJail(
        fs.realpathSync(server.cwd!),
        { command: server.command, args: server.args },
        {
          uid,
          env: server.env,
          ...(egress ? { egressSocket: egress } : {}),
          ...(this.options.limits ? { limits: this.options.limits } : {}),
        },
      );
    } else {
      const readable = [...(egress ? egressReadable() : [])];
      if (server.cwd) readable.push(path.resolve(server.cwd));
      // A command outside /usr (a tool in /opt, uvx in /usr/local/bin) is visible in the jail read-only, with its folder.
      const command = resolveCommand(server.command);
      if (!command.startsWith('/usr/')) readable.push(path.dirname(command));
      spec = {
        command,
        args: server.args,
        cwd: server.cwd ? path.resolve(server.cwd) : '/tmp',
        writable: [],
        readable: [...new Set(readable)],
        // Node 20's fetch ignores HTTP_PROXY: a preload sends it through the proxy (a server's own NODE_OPTIONS wins).
        env: { ...(egress && egressPreload() ? { NODE_OPTIONS: egressPreload()! } : {}), ...server.env },
        uid,
        ...(egress ? { egressSocket: egress } : {}),
        ...(this.options.limits ? { limits: this.options.limits } : {}),
      };
    }
    return { ...jailCommand(spec, tools), cwd: spec.cwd };
  }

  /** A deleted server: its egress socket closes. */
  async forget(serverId: string): Promise<void> {
    this.approved.delete(serverId);
    const socket = this.sockets.get(serverId);
    this.sockets.delete(serverId);
    if (socket) await (await socket).close();
  }

  async close(): Promise<void> {
    for (const id of [...this.sockets.keys()]) await this.forget(id);
    await this.options.egress.close();
  }

  private uidOf(serverId: string): number {
    let uid = this.uids.get(serverId);
    if (uid === undefined) {
      uid = generatedServerUid(this.options.sandboxUid) + 1 + (this.uids.size % UIDS);
      this.uids.set(serverId, uid);
    }
    return uid;
  }

  private socketOf(serverId: string): Promise<EgressSocket> {
    let socket = this.sockets.get(serverId);
    if (!socket) {
      socket = this.options.egress.listen(serverId, () => this.approved.get(serverId) ?? []);
      socket.catch(() => this.sockets.delete(serverId));
      this.sockets.set(serverId, socket);
    }
    return socket;
  }
}

/** The absolute path of `command` on Toolgate's PATH (a name as the admin registered it), or the name unchanged. */
function resolveCommand(command: string): string {
  if (path.isAbsolute(command)) return command;
  if (command.includes('/')) return path.resolve(command);
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const p = path.join(dir, command);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return `/usr/bin/${command}`;
}
