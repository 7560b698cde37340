import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * A legacy MCP session: a few hundred bytes of plain state bound to the bundle and the key that
 * opened it. No server object, no per-session catalog.
 */
export interface Session {
  readonly id: string;
  readonly bundleId: string;
  /** Hash of the key that opened the session: a regenerated key ends it. */
  readonly keyHash: string;
  readonly protocolVersion: string;
  lastSeen: number;
  /** The open GET stream, if any (server-to-client notifications). */
  stream: ServerResponse | null;
}

/** Sessions in a map with idle expiry. */
export class SessionStore {
  private sessions = new Map<string, Session>();
  private streaming = new Set<Session>();
  private sweeper: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(idleMs, 60_000)));
    this.sweeper.unref();
  }

  /** Opens a session: 192 random bits, base64url (visible ASCII, unguessable). */
  create(bundleId: string, keyHash: string, protocolVersion: string): Session {
    const session: Session = {
      id: randomBytes(24).toString('base64url'),
      bundleId,
      keyHash,
      protocolVersion,
      lastSeen: this.now(),
      stream: null,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id (touched), or undefined when unknown, ended or expired. */
  get(id: string): Session | undefined {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const now = this.now();
    if (!s.stream && now - s.lastSeen > this.idleMs) {
      this.end(id);
      return undefined;
    }
    s.lastSeen = now;
    return s;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Attaches a GET stream to a session, closing the one it replaces. */
  attachStream(session: Session, stream: ServerResponse): void {
    if (session.stream && session.stream !== stream) session.stream.end();
    session.stream = stream;
    this.streaming.add(session);
    stream.once('close', () => {
      if (session.stream === stream) {
        session.stream = null;
        session.lastSeen = this.now();
        this.streaming.delete(session);
      }
    });
  }

  /** Sessions with an open GET stream. */
  streams(): Iterable<Session> {
    return this.streaming;
  }

  /** Ends every open GET stream; the sessions live on (a graceful stop lets their calls finish). */
  closeStreams(): void {
    for (const s of [...this.streaming]) s.stream?.end();
  }

  /** Ends a session; its stream closes. Returns whether it existed. */
  end(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    this.streaming.delete(s);
    s.stream?.end();
    s.stream = null;
    this.onEnd?.(s);
    return true;
  }

  /** Ends every session of a bundle except those opened with `keepKeyHash`. */
  endForBundle(bundleId: string, keepKeyHash?: string): void {
    for (const s of [...this.sessions.values()]) if (s.bundleId === bundleId && s.keyHash !== keepKeyHash) this.end(s.id);
  }

  /** Called when a session ends (to cancel its in-flight requests). */
  onEnd?: (session: Session) => void;

  /** Ends idle sessions. */
  sweep(): void {
    const now = this.now();
    for (const s of [...this.sessions.values()]) if (!s.stream && now - s.lastSeen > this.idleMs) this.end(s.id);
  }

  /** Ends everything (server stop). */
  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }
}
