/**
 * The requests in flight on each stateful session, so that `notifications/cancelled` (read by
 * stateful-sessions.ts and sse-transport.ts) and the end of a session (DELETE, expiry) reach them.
 * dispatch.ts registers each request of a session while it runs.
 */
import type { Cancellation } from '../cancellation.js';

/** The abort reason of a request the client cancelled (`notifications/cancelled`): it gets no response. */
export class ClientCancelled extends Error {}

/** A session's requests in flight, by JSON-RPC id (as JSON, so `1` and `"1"` differ). */
export type SessionCalls = Map<string, Cancellation>;

export class InFlight {
  private readonly bySession = new Map<string, SessionCalls>();

  /** Registers a running request of a session; give the returned set to `forget` once it is answered. */
  track(sessionId: string, idKey: string, controller: Cancellation): SessionCalls {
    let calls = this.bySession.get(sessionId);
    if (!calls) this.bySession.set(sessionId, (calls = new Map()));
    calls.set(idKey, controller);
    return calls;
  }

  /** Forgets an answered request (unless its id was reused meanwhile). */
  forget(sessionId: string, calls: SessionCalls, idKey: string, controller: Cancellation): void {
    if (calls.get(idKey) === controller) calls.delete(idKey);
    if (calls.size === 0) this.bySession.delete(sessionId);
  }

  /** `notifications/cancelled`: aborts the named request, which then gets no response. */
  cancel(sessionId: string, requestId: unknown): void {
    this.bySession.get(sessionId)?.get(JSON.stringify(requestId))?.abort(new ClientCancelled('Request cancelled'));
  }

  /** The session ended: every request still running on it is cancelled. */
  cancelAll(sessionId: string): void {
    const calls = this.bySession.get(sessionId);
    if (!calls) return;
    this.bySession.delete(sessionId);
    for (const c of calls.values()) c.abort();
  }
}
