import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * A legacy MCP session: a few hundred bytes of plain state bound to the scope (a bundle, or one
 * user's gateway) and the credential that opened it. No server object, no per-session catalog.
 */
export interface Session {
  readonly id: string;
  /** What the session serves: a bundle id, or `gateway:<user id>`. Announcements go by scope. */
  readonly scope: string;
  /**
   * The credential that opened the session (a bundle key's hash, a user API key's hash): the session
   * is served only with it, and a regenerated bundle key ends it.
   */
  readonly credential: string;
  /** Fixed at creation, except on the legacy HTTP+SSE transport, where `initialize` comes after. */
  protocolVersion: string;
  /** A session of the legacy HTTP+SSE transport (2024-11-05): it lives as long as its event stream. */
  sseTransport: boolean;
  lastSeen: number;
  /** The open GET stream, if any (server-to-client notifications). */
  stream: ServerResponse | null;
  /**
   * Set by `notifications/initialized` (or at once for an implicit session). Requests are served
   * before it; it tells server-to-client traffic (which must wait for it) when it may start.
   */
  initialized: boolean;
  /**
   * Opened implicitly by a request without `Mcp-Session-Id` and not named by the client since:
   * such a session lives a short while only, so clients that never send the id back do not pile
   * up sessions for the whole idle timeout.
   */
  provisional: boolean;
  /** What the GET stream carried, for `Last-Event-ID` replay; created by the first GET stream. */
  events: EventLog | null;
  /** The `capabilities` the client declared in `initialize` (sampling, elicitation, roots are relayed only to a client that has them). */
  clientCapabilities?: Record<string, unknown>;
  /** The level `logging/setLevel` chose; unset: every upstream log message of the session's calls is relayed. */
  logLevel?: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
  /** Resource URIs the session subscribed to, with the upstream server of each. */
  subscriptions?: Map<string, string>;
}

/** Most events a session keeps for replay. */
export const REPLAY_MAX_EVENTS = 100;
/** Most bytes of events a session keeps for replay. */
export const REPLAY_MAX_BYTES = 1024 * 1024;
/** How long an implicit session lives unless the client names it again. */
export const PROVISIONAL_IDLE_MS = 60_000;

/**
 * The events of one session's GET stream, numbered 1, 2, … (the SSE `id`), the newest kept
 * (at most `REPLAY_MAX_EVENTS` and `REPLAY_MAX_BYTES`) so a reconnect with `Last-Event-ID` gets
 * what it missed, including what was sent while no stream was attached.
 */
export class EventLog {
  private lastId = 0;
  private bytes = 0;
  private readonly kept: { id: number; frame: string }[] = [];

  /** Numbers a JSON-RPC message and keeps its SSE frame; returns the frame. */
  append(data: string): string {
    this.lastId += 1;
    const frame = `id: ${this.lastId}\nevent: message\ndata: ${data}\n\n`;
    this.kept.push({ id: this.lastId, frame });
    this.bytes += Buffer.byteLength(frame);
    while (this.kept.length > REPLAY_MAX_EVENTS || (this.bytes > REPLAY_MAX_BYTES && this.kept.length > 1)) {
      this.bytes -= Buffer.byteLength(this.kept.shift()!.frame);
    }
    return frame;
  }

  /**
   * The frames after `lastEventId`: every kept one when it is older than the log (some are lost
   * for good), none when it is not an id this log handed out.
   */
  after(lastEventId: string): string[] {
    if (!/^\d{1,15}$/.test(lastEventId)) return [];
    const last = Number(lastEventId);
    if (last > this.lastId) return [];
    return this.kept.filter((e) => e.id > last).map((e) => e.frame);
  }
}

/** Sessions in a map with idle expiry. */
export class SessionStore {
  private sessions = new Map<string, Session>();
  private streaming = new Set<Session>();
  /** Sessions that have opened a GET stream: their notifications are logged even while it is closed. */
  private listening = new Set<Session>();
  private sweeper: NodeJS.Timeout;

  constructor(
    private idleMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(idleMs, 60_000)));
    this.sweeper.unref();
  }

  /** Changes the idle timeout of every session, open ones included (general settings). */
  setIdleTimeout(idleMs: number): void {
    this.idleMs = idleMs;
    clearInterval(this.sweeper);
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(idleMs, 60_000)));
    this.sweeper.unref();
  }

  /** Opens a session: 192 random bits, base64url (visible ASCII, unguessable). */
  create(
    scope: string,
    credential: string,
    protocolVersion: string,
    options: { implicit?: boolean; sseTransport?: boolean } = {},
  ): Session {
    const implicit = options.implicit === true;
    const session: Session = {
      id: randomBytes(24).toString('base64url'),
      scope,
      credential,
      protocolVersion,
      sseTransport: options.sseTransport === true,
      lastSeen: this.now(),
      stream: null,
      initialized: implicit,
      provisional: implicit,
      events: null,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id (touched), or undefined when unknown, ended or expired. */
  get(id: string): Session | undefined {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const now = this.now();
    if (this.expired(s, now)) {
      this.end(id);
      return undefined;
    }
    s.lastSeen = now;
    s.provisional = false;
    return s;
  }

  private expired(s: Session, now: number): boolean {
    const idle = s.provisional ? Math.min(this.idleMs, PROVISIONAL_IDLE_MS) : this.idleMs;
    return !s.stream && now - s.lastSeen > idle;
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Attaches a GET stream to a session, closing the one it replaces, and replays the events after
   * `lastEventId` (the client's `Last-Event-ID`) on it.
   */
  attachStream(session: Session, stream: ServerResponse, lastEventId?: string): void {
    if (session.stream && session.stream !== stream) session.stream.end();
    session.stream = stream;
    session.events ??= new EventLog();
    if (lastEventId !== undefined) for (const frame of session.events.after(lastEventId)) stream.write(frame);
    this.streaming.add(session);
    this.listening.add(session);
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

  /** Sessions that have opened a GET stream (open now or not): where notifications go. */
  listeners(): Iterable<Session> {
    return this.listening;
  }

  /**
   * Sends a JSON-RPC notification on a session's GET stream as a numbered event, kept for replay
   * (also while the stream is closed, so a reconnect gets it). Sessions that never opened a GET
   * stream have nowhere to receive it: nothing is kept for them.
   */
  send(session: Session, data: string): void {
    if (!session.events) return;
    const frame = session.events.append(data);
    if (session.stream && !session.stream.writableEnded) session.stream.write(frame);
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
    this.listening.delete(s);
    s.stream?.end();
    s.stream = null;
    this.onEnd?.(s);
    return true;
  }

  /** Ends every session of a scope except those opened with `keepCredential`. */
  endForScope(scope: string, keepCredential?: string): void {
    for (const s of [...this.sessions.values()]) if (s.scope === scope && s.credential !== keepCredential) this.end(s.id);
  }

  /** Ends every session of a bundle (its scope is its id) except those opened with `keepKeyHash`. */
  endForBundle(bundleId: string, keepKeyHash?: string): void {
    this.endForScope(bundleId, keepKeyHash);
  }

  /** Called when a session ends (to cancel its in-flight requests). */
  onEnd?: (session: Session) => void;

  /** Ends idle sessions. */
  sweep(): void {
    const now = this.now();
    for (const s of [...this.sessions.values()]) if (this.expired(s, now)) this.end(s.id);
  }

  /** Ends everything (server stop). */
  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }
}
