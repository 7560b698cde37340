import type { UpstreamCaller } from '../domain/upstream-call.js';
import type { Logger } from '../logger.js';
import { sseEvent } from './transport/responses.js';
import type { Session } from './sessions.js';

/**
 * `resources/subscribe` relayed to upstreams, shared by every session: an upstream is subscribed
 * to a URI once, while at least one session wants it, and its `notifications/resources/updated`
 * go to the GET streams of the sessions that subscribed to that URI of that server.
 */
export class ResourceSubscriptions {
  /** Sessions subscribed, by `serverId \n uri`. */
  private readonly subscribers = new Map<string, Set<Session>>();
  private readonly stopListening: () => void;
  private readonly stopWatching: () => void;

  constructor(
    private readonly upstreams: UpstreamCaller,
    private readonly logger: Logger,
  ) {
    this.stopListening = upstreams.onResourceUpdated?.((serverId, uri) => this.updated(serverId, uri)) ?? (() => undefined);
    this.stopWatching = upstreams.onUpstreamConnected?.((serverId) => this.restore(serverId)) ?? (() => undefined);
  }

  /** Whether the upstreams can be subscribed to at all. */
  get supported(): boolean {
    return this.upstreams.subscribeResource !== undefined && this.upstreams.onResourceUpdated !== undefined;
  }

  /** Subscribes a session to `uri` of a server (the upstream once, on the first subscriber). */
  async subscribe(session: Session, serverId: string, uri: string): Promise<void> {
    const key = `${serverId}\n${uri}`;
    const previous = session.subscriptions?.get(uri);
    if (previous === serverId) return;
    if (previous !== undefined) await this.unsubscribe(session, uri);
    let set = this.subscribers.get(key);
    if (!set) {
      await this.upstreams.subscribeResource?.(serverId, uri);
      set = this.subscribers.get(key) ?? new Set();
      this.subscribers.set(key, set);
    }
    set.add(session);
    (session.subscriptions ??= new Map()).set(uri, serverId);
  }

  /** Ends a session's subscription to `uri` (the upstream's once nobody is left). */
  async unsubscribe(session: Session, uri: string): Promise<void> {
    const serverId = session.subscriptions?.get(uri);
    if (serverId === undefined) return;
    session.subscriptions!.delete(uri);
    const key = `${serverId}\n${uri}`;
    const set = this.subscribers.get(key);
    set?.delete(session);
    if (set && set.size === 0) {
      this.subscribers.delete(key);
      await this.upstreams.unsubscribeResource?.(serverId, uri);
    }
  }

  /** Drops every subscription of an ended session. */
  endSession(session: Session): void {
    for (const uri of [...(session.subscriptions?.keys() ?? [])]) {
      this.unsubscribe(session, uri).catch((err: unknown) => this.logger.debug({ err }, 'upstream unsubscribe failed'));
    }
  }

  /** Stops listening to the upstreams (the endpoint closes). */
  close(): void {
    this.stopListening();
    this.stopWatching();
  }

  /** A reconnected upstream (a new process, a new HTTP session) has forgotten our subscriptions: subscribe again. */
  private restore(serverId: string): void {
    for (const [key, set] of this.subscribers) {
      const [id, uri] = [key.slice(0, key.indexOf('\n')), key.slice(key.indexOf('\n') + 1)];
      if (id !== serverId || set.size === 0) continue;
      this.upstreams
        .subscribeResource?.(serverId, uri)
        .catch((err: unknown) => this.logger.warn({ err, serverId }, 'resubscribing to an upstream resource failed'));
    }
  }

  private updated(serverId: string, uri: string): void {
    const set = this.subscribers.get(`${serverId}\n${uri}`);
    if (!set) return;
    const event = sseEvent(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }));
    for (const session of set) session.stream?.write(event);
  }
}
