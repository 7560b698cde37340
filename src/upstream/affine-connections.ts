import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { CallerAffinity } from '../domain/upstream-call.js';
import { RELAY_CLIENT_CAPABILITIES } from './downstream-router.js';
import { UpstreamConnection, type UpstreamEvents, type UpstreamPoolOptions, type UpstreamServerSpec } from './upstream-connection.js';

/** Bounds of the session-affine upstream connections (from the process configuration). */
export interface AffinityOptions {
  /** Most session-affine connections to one upstream server (busy and idle together). */
  readonly maxPerServer: number;
  /** Most session-affine connections one user (or key) holds to one upstream server. */
  readonly maxPerUser: number;
  /** How long an unused session-affine connection is kept for its caller before it is closed. */
  readonly idleMs: number;
  /**
   * Warm connections kept ready per server (0 to 8), so a caller's first call does not wait for a
   * stdio process to start: each taken by a call that finds no idle connection of its caller, and
   * replaced at once.
   */
  readonly spares?: number;
}

/** A session-affine connection lent to one call; `release` when the call settles. */
export interface AffineLease {
  readonly connection: UpstreamConnection;
  release(): void;
}

/** Figures of one server's session-affine connections, for /metrics. */
export interface AffinityStats {
  readonly serverId: string;
  readonly busy: number;
  readonly idle: number;
}

interface Entry {
  readonly connection: UpstreamConnection;
  readonly serverId: string;
  /** The caller and its declared features: only a call with the same key may use the connection. */
  readonly key: string;
  readonly owner: string;
  busy: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

/** A session-affine connection reports nothing to the catalog: the shared connection speaks for the server. */
export const SILENT: UpstreamEvents = { onConnected: () => undefined, onStateChange: () => undefined, onListChanged: () => undefined };

/**
 * Session-affine upstream connections. Over stdio or the HTTP+SSE transport an upstream's
 * server-to-client requests (sampling, elicitation, roots) and log messages carry nothing that
 * names the call they belong to, so on a connection shared by several callers the gateway can
 * attribute them only while one call is in flight. A caller that declared such a feature therefore
 * gets a connection of its own for the duration of each call: at most one call runs on it at a
 * time, so whatever arrives on it belongs to that call, under any concurrency. Between calls the
 * connection stays with its caller (its stdio process keeps what the caller told it, such as
 * roots) until it has been idle `idleMs`.
 *
 * Bounded per server and per user: past either bound no new connection is made and the call runs
 * on the shared connection, where a server-to-client request is still relayed when its call is
 * the only one in flight and refused otherwise (never delivered to another caller).
 */
export class AffineConnections {
  private readonly entries = new Set<Entry>();
  private readonly byServer = new Map<string, Set<Entry>>();
  /** The warm spares of each server (declaring every relayed feature, so they fit any caller). */
  private readonly spares = new Map<string, UpstreamConnection[]>();
  private closed = false;

  constructor(
    private readonly options: AffinityOptions,
    private readonly poolOptions: UpstreamPoolOptions,
  ) {}

  /**
   * A connection of `affinity`'s caller to the server `spec` describes, free for one call: an idle
   * one of the caller's, else a new one; undefined past the bounds (the call shares the pool's).
   */
  lease(spec: UpstreamServerSpec, affinity: CallerAffinity): AffineLease | undefined {
    if (this.closed) return undefined;
    const key = `${affinity.key}\n${JSON.stringify(affinity.capabilities)}`;
    const servers = this.byServer.get(spec.id);
    let ownerCount = 0;
    if (servers) {
      for (const entry of servers) {
        if (entry.owner === affinity.owner) ownerCount += 1;
        if (entry.busy || entry.key !== key) continue;
        if (entry.connection.state.status === 'error') {
          void this.drop(entry);
          ownerCount -= 1;
          continue;
        }
        return this.take(entry);
      }
      const overUser = ownerCount >= this.options.maxPerUser;
      if (overUser || servers.size >= this.options.maxPerServer) {
        // Room is made by closing an idle connection: the same user's first, another's only for the server bound.
        let idle: Entry | undefined;
        for (const e of servers) {
          if (e.busy) continue;
          if (e.owner === affinity.owner) {
            idle = e;
            break;
          }
          if (!overUser) idle ??= e;
        }
        if (!idle) return undefined;
        void this.drop(idle);
      }
    }
    // (Re-read: closing the last idle connection above may have let go of the server's set.)
    let held = this.byServer.get(spec.id);
    if (!held) this.byServer.set(spec.id, (held = new Set()));
    // The server's warm spare when it is up (a fresh one starts in its place), else a new connection
    // declaring exactly the caller's features.
    const warm = this.spares.get(spec.id);
    const at = warm ? warm.findIndex((c) => c.state.status === 'connected') : -1;
    const spare = at >= 0 ? warm!.splice(at, 1)[0] : undefined;
    let connection: UpstreamConnection;
    if (spare) {
      connection = spare;
      this.warm(spec);
    } else {
      connection = new UpstreamConnection(spec, this.poolOptions, SILENT, { ...affinity.capabilities } as ClientCapabilities);
    }
    const entry: Entry = { connection, serverId: spec.id, key, owner: affinity.owner, busy: false, idleTimer: undefined };
    held.add(entry);
    this.entries.add(entry);
    if (connection !== spare) connection.start();
    return this.take(entry);
  }

  /** Starts warm spares of a server that cannot attribute (stdio, HTTP+SSE) until it has `spares` of them. */
  warm(spec: UpstreamServerSpec): void {
    const wanted = this.options.spares ?? 0;
    if (this.closed || wanted === 0) return;
    let held = this.spares.get(spec.id);
    if (!held) this.spares.set(spec.id, (held = []));
    while (held.length < wanted) {
      const spare = new UpstreamConnection(spec, this.poolOptions, SILENT, RELAY_CLIENT_CAPABILITIES);
      held.push(spare);
      spare.start();
    }
  }

  /** Closes every session-affine connection to a server, and its spare (it was changed, disabled or removed). */
  async closeServer(serverId: string): Promise<void> {
    const spares = this.spares.get(serverId) ?? [];
    this.spares.delete(serverId);
    const servers = this.byServer.get(serverId);
    await Promise.all([...spares.map((c) => c.close()), ...[...(servers ?? [])].map((e) => this.drop(e))]);
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    const spares = [...this.spares.values()].flat();
    this.spares.clear();
    await Promise.all([...spares.map((c) => c.close()), ...[...this.entries].map((e) => this.drop(e))]);
  }

  /** Busy and idle connections per server. */
  stats(): AffinityStats[] {
    const out: AffinityStats[] = [];
    for (const [serverId, servers] of this.byServer) {
      let busy = 0;
      for (const e of servers) if (e.busy) busy += 1;
      out.push({ serverId, busy, idle: servers.size - busy });
    }
    return out;
  }

  /** Connections held now (tests). */
  get size(): number {
    return this.entries.size;
  }

  private take(entry: Entry): AffineLease {
    entry.busy = true;
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    let released = false;
    return {
      connection: entry.connection,
      release: () => {
        if (released) return;
        released = true;
        entry.busy = false;
        if (!this.entries.has(entry)) return;
        // A connection that failed is not kept for a next call: that call gets a fresh one.
        if (entry.connection.state.status === 'error') {
          void this.drop(entry);
          return;
        }
        entry.idleTimer = setTimeout(() => void this.drop(entry), this.options.idleMs);
        entry.idleTimer.unref();
      },
    };
  }

  private drop(entry: Entry): Promise<void> {
    clearTimeout(entry.idleTimer);
    this.entries.delete(entry);
    const servers = this.byServer.get(entry.serverId);
    if (servers) {
      servers.delete(entry);
      if (servers.size === 0) this.byServer.delete(entry.serverId);
    }
    return entry.connection.close();
  }
}
