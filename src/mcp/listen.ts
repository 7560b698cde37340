import type { ServerResponse } from 'node:http';
import { sseEvent } from './transport/responses.js';

/** `_meta` key tagging every message of a listen stream with its subscription (the request's id). */
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The list-changed notification types a listen stream can ask for, and the notification each one is. */
const LIST_KINDS = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
} as const;
type ListFlag = keyof typeof LIST_KINDS;
export type ListKind = 'tools' | 'prompts' | 'resources';
const FLAG_OF: Record<ListKind, ListFlag> = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' };

interface Listener {
  readonly id: string | number;
  readonly scope: string;
  readonly credential: string;
  /** What the server agreed to send (the acknowledged filter). */
  readonly filter: Partial<Record<ListFlag, true>>;
  readonly res: ServerResponse;
}

/** Why a listen request is refused: its filter is malformed (-32602). */
export class InvalidFilterError extends Error {}

/**
 * `subscriptions/listen` (2026-07-28): long-lived response streams of notifications outside any
 * request. The first event acknowledges the subscription with the filter the gateway honours (the
 * list-changed types; resource subscriptions are not offered on this path); every event carries the
 * subscription id (the listen request's JSON-RPC id) in `_meta`, and only the types asked for are
 * sent. A stream lives until the client closes it, its credential stops being valid, or the
 * server stops (then it ends with the listen request's result).
 */
export class ListenStreams {
  private readonly listeners = new Set<Listener>();

  /** Parses the requested filter into the acknowledged one; throws InvalidFilterError when malformed. */
  static agreedFilter(params: Record<string, unknown>): Partial<Record<ListFlag, true>> {
    const requested = params.notifications;
    if (typeof requested !== 'object' || requested === null || Array.isArray(requested))
      throw new InvalidFilterError('Invalid params: notifications must be an object');
    const filter: Partial<Record<ListFlag, true>> = {};
    for (const [name, value] of Object.entries(requested as Record<string, unknown>)) {
      if (name in LIST_KINDS) {
        if (typeof value !== 'boolean') throw new InvalidFilterError(`Invalid params: notifications.${name} must be a boolean`);
        if (value) filter[name as ListFlag] = true;
      } else if (name === 'resourceSubscriptions') {
        if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
          throw new InvalidFilterError('Invalid params: notifications.resourceSubscriptions must be an array of URIs');
      }
    }
    return filter;
  }

  /** Opens a listen stream on `res` and acknowledges it. */
  open(
    res: ServerResponse,
    id: string | number,
    scope: string,
    credential: string,
    filter: Partial<Record<ListFlag, true>>,
    headers: Record<string, string>,
  ): void {
    const listener: Listener = { id, scope, credential, filter, res };
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    this.write(listener, 'notifications/subscriptions/acknowledged', { notifications: filter });
    this.listeners.add(listener);
    res.once('close', () => this.listeners.delete(listener));
  }

  /** Tells the streams of these scopes that a list changed (those that asked for that kind). */
  announce(scopes: ReadonlySet<string>, kinds: readonly ListKind[]): void {
    for (const l of this.listeners) {
      if (!scopes.has(l.scope)) continue;
      for (const kind of kinds) if (l.filter[FLAG_OF[kind]]) this.write(l, LIST_KINDS[FLAG_OF[kind]]);
    }
  }

  /** Ends the streams `which` selects (a revoked key, a deactivated user): the client reconnects and authenticates again. */
  closeWhere(which: (scope: string, credential: string) => boolean): void {
    for (const l of [...this.listeners]) if (which(l.scope, l.credential)) this.end(l);
  }

  /** An SSE comment on every stream, so idle connections are not timed out by proxies. */
  keepAlive(): void {
    for (const l of this.listeners) if (!l.res.writableEnded) l.res.write(': keepalive\n\n');
  }

  /** Ends every stream with the listen request's result (the server is stopping). */
  close(): void {
    for (const l of [...this.listeners]) this.end(l);
  }

  /** The scopes with an open stream. */
  scopes(): Set<string> {
    return new Set([...this.listeners].map((l) => l.scope));
  }

  get size(): number {
    return this.listeners.size;
  }

  private end(l: Listener): void {
    this.listeners.delete(l);
    if (l.res.writableEnded) return;
    l.res.end(
      sseEvent(JSON.stringify({ jsonrpc: '2.0', id: l.id, result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: l.id } } })),
    );
  }

  private write(l: Listener, method: string, params: Record<string, unknown> = {}): void {
    if (l.res.writableEnded) return;
    l.res.write(sseEvent(JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta: { [META_SUBSCRIPTION_ID]: l.id } } })));
  }
}
