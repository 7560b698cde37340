import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { McpLogLevel, SessionRecord, SharedSessions } from '../domain/shared-sessions.js';
import type { PostStreams } from './stream-logs.js';

export type { SessionRecord, SharedSessions } from '../domain/shared-sessions.js';

/**
 * A stateful MCP session: a few hundred bytes of plain state bound to the scope (a bundle, or one
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
  /** Fixed at creation, except on the HTTP+SSE transport, where `initialize` comes after. */
  protocolVersion: string;
  /** A session of the HTTP+SSE transport (2024-11-05): it lives as long as its event stream. */
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
  /** What its POST response streams carried, for resuming one with `Last-Event-ID`; created by the first. */
  postStreams?: PostStreams;
  /** The `capabilities` the client declared in `initialize` (sampling, elicitation, roots are relayed only to a client that has them). */
  clientCapabilities?: Record<string, unknown>;
  /** The level `logging/setLevel` chose; unset: every upstream log message of the session's calls is relayed. */
  logLevel?: McpLogLevel;
  /** Resource URIs the session subscribed to, with the upstream server of each. */
  subscriptions?: Map<string, string>;
}

/** Tunables of the session store. */
export interface SessionStoreOptions {
  /** Most sessions one scope (a bundle key, one user's gateway) holds here; the least recently used idle one makes room. */
  maxPerScope?: number;
  /** Where sessions are shared with other instances (absent: this instance only). */
  shared?: SharedSessions;
}

/** Default of `maxPerScope` (TOOLGATE_MCP_MAX_SESSIONS_PER_KEY). */
export const DEFAULT_MAX_SESSIONS_PER_SCOPE = 1000;

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

  /** The id of the latest event (0 before the first): a GET stream's priming event names it. */
  get latestId(): number {
    return this.lastId;
  }

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

/**
 * Sessions in a map with idle expiry, at most `maxPerScope` per scope (the least recently used
 * idle one is evicted to make room: its client gets 404 and opens a new one). With a `shared`
 * store, sessions of the Streamable HTTP transport are also shared with the other instances: a
 * session opened elsewhere is loaded on first use, and an explicit end (DELETE, eviction) ends it
 * everywhere. Idle expiry is per instance (the shared record outlives it while another instance
 * keeps touching it).
 */
export class SessionStore {
  private sessions = new Map<string, Session>();
  private byScope = new Map<string, Set<Session>>();
  private streaming = new Set<Session>();
  /** Sessions that have opened a GET stream: their notifications are logged even while it is closed. */
  private listening = new Set<Session>();
  private sweeper: NodeJS.Timeout;
  private readonly maxPerScope: number;
  private readonly shared: SharedSessions | undefined;
  private readonly unsubscribeShared: (() => void) | undefined;
  /** When shared records were last touched: sessions seen since get their life extended. */
  private lastTouch: number;
  /** Loads from the shared store in progress, so concurrent requests for one id share one. */
  private readonly loading = new Map<string, Promise<Session | undefined>>();

  constructor(
    private idleMs: number,
    private readonly now: () => number = Date.now,
    options: SessionStoreOptions = {},
  ) {
    this.maxPerScope = options.maxPerScope ?? DEFAULT_MAX_SESSIONS_PER_SCOPE;
    this.shared = options.shared;
    this.lastTouch = now();
    this.unsubscribeShared = this.shared?.onEnded((id) => this.endHere(id));
    this.sweeper = setInterval(() => this.sweep(), this.sweepInterval());
    this.sweeper.unref();
  }

  private sweepInterval(): number {
    return Math.max(1000, Math.min(this.idleMs, 60_000));
  }

  /** How long a shared record lives untouched: the idle timeout plus two sweeps (touches come with sweeps). */
  private sharedTtl(): number {
    return this.idleMs + 2 * this.sweepInterval();
  }

  /** Changes the idle timeout of every session, open ones included (general settings). */
  setIdleTimeout(idleMs: number): void {
    this.idleMs = idleMs;
    clearInterval(this.sweeper);
    this.sweeper = setInterval(() => this.sweep(), this.sweepInterval());
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
    this.add(session);
    // An implicit session is shared without waiting: its client may never name it again.
    if (implicit) void this.persist(session);
    return session;
  }

  /**
   * Shares a session with the other instances (its current state); resolves once stored, so a
   * client may take the id to another instance as soon as it has it. Nothing to do without a
   * shared store, or for a session of the HTTP+SSE transport (bound to its stream here).
   */
  persist(session: Session): Promise<void> {
    if (!this.shared || session.sseTransport) return Promise.resolve();
    return this.shared.save(toRecord(session), session.provisional ? Math.min(this.sharedTtl(), PROVISIONAL_IDLE_MS) : this.sharedTtl());
  }

  private add(session: Session): void {
    let scoped = this.byScope.get(session.scope);
    if (!scoped) this.byScope.set(session.scope, (scoped = new Set()));
    while (scoped.size >= this.maxPerScope) {
      const victim = leastRecentlyUsed(scoped);
      if (!victim) break;
      this.end(victim.id);
    }
    scoped.add(session);
    this.sessions.set(session.id, session);
  }

  /** The live session with this id (touched), or undefined when unknown here, ended or expired. */
  get(id: string): Session | undefined {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const now = this.now();
    if (this.expired(s, now)) {
      this.endHere(id);
      return undefined;
    }
    this.touch(s, now);
    s.provisional = false;
    return s;
  }

  /**
   * Marks a session used now. Its scope's set is kept in order of use, least recent first, which
   * is what eviction reads: timestamps alone tie within a millisecond.
   */
  private touch(s: Session, now: number): void {
    s.lastSeen = now;
    const scoped = this.byScope.get(s.scope);
    if (scoped?.delete(s)) scoped.add(s);
  }

  /**
   * The live session with this id: the local one, else (with a shared store) one opened on another
   * instance, loaded once and kept here from then on; undefined when neither knows it.
   */
  resolve(id: string): Session | undefined | Promise<Session | undefined> {
    const local = this.get(id);
    if (local || !this.shared) return local;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.shared
        .load(id)
        .then((record) => {
          if (!record || record.id !== id) return undefined;
          // A request of this instance may have created or loaded it meanwhile.
          const known = this.get(id);
          if (known) return known;
          const session: Session = {
            id: record.id,
            scope: record.scope,
            credential: record.credential,
            protocolVersion: record.protocolVersion,
            sseTransport: false,
            lastSeen: this.now(),
            stream: null,
            initialized: record.initialized,
            provisional: false,
            events: null,
            ...(record.clientCapabilities ? { clientCapabilities: record.clientCapabilities } : {}),
            ...(record.logLevel ? { logLevel: record.logLevel } : {}),
          };
          this.add(session);
          return session;
        })
        .finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  private expired(s: Session, now: number): boolean {
    const idle = s.provisional ? Math.min(this.idleMs, PROVISIONAL_IDLE_MS) : this.idleMs;
    return !s.stream && now - s.lastSeen > idle;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Sessions of one scope held here. */
  countForScope(scope: string): number {
    return this.byScope.get(scope)?.size ?? 0;
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
        this.touch(session, this.now());
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

  /** Ends a session, here and (shared) on every instance; its stream closes. Returns whether it existed here. */
  end(id: string): boolean {
    const sseTransport = this.sessions.get(id)?.sseTransport ?? false;
    const existed = this.endHere(id);
    if (this.shared && !sseTransport) this.shared.end(id);
    return existed;
  }

  /** Ends a session on this instance only (idle expiry, an end announced by another instance). */
  private endHere(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    const scoped = this.byScope.get(s.scope);
    scoped?.delete(s);
    if (scoped?.size === 0) this.byScope.delete(s.scope);
    this.streaming.delete(s);
    this.listening.delete(s);
    s.stream?.end();
    s.stream = null;
    s.postStreams?.close();
    this.onEnd?.(s);
    return true;
  }

  /** Ends every session of a scope except those opened with `keepCredential`. */
  endForScope(scope: string, keepCredential?: string): void {
    for (const s of [...(this.byScope.get(scope) ?? [])]) if (s.credential !== keepCredential) this.end(s.id);
  }

  /** Ends every session of a bundle (its scope is its id) except those opened with `keepKeyHash`. */
  endForBundle(bundleId: string, keepKeyHash?: string): void {
    this.endForScope(bundleId, keepKeyHash);
  }

  /** Called when a session ends (to cancel its in-flight requests). */
  onEnd?: (session: Session) => void;

  /** Ends idle sessions; extends the shared life of those used since the last sweep. */
  sweep(): void {
    const now = this.now();
    const touched: string[] = [];
    for (const s of [...this.sessions.values()]) {
      if (this.expired(s, now)) this.endHere(s.id);
      else if (this.shared && !s.sseTransport && (s.lastSeen >= this.lastTouch || s.stream)) touched.push(s.id);
    }
    this.lastTouch = now;
    if (touched.length) this.shared!.touch(touched, this.sharedTtl());
  }

  /** Ends everything here (server stop); shared sessions live on for the other instances. */
  close(): void {
    clearInterval(this.sweeper);
    this.unsubscribeShared?.();
    for (const id of [...this.sessions.keys()]) this.endHere(id);
  }
}

/** The shared part of a session. */
function toRecord(s: Session): SessionRecord {
  return {
    id: s.id,
    scope: s.scope,
    credential: s.credential,
    protocolVersion: s.protocolVersion,
    initialized: s.initialized,
    ...(s.clientCapabilities ? { clientCapabilities: s.clientCapabilities } : {}),
    ...(s.logLevel ? { logLevel: s.logLevel } : {}),
  };
}

/**
 * The session to evict from a full scope (its set in order of use, least recent first): the least
 * recently used without an open stream, else the least recently used.
 */
function leastRecentlyUsed(scoped: ReadonlySet<Session>): Session | undefined {
  let first: Session | undefined;
  for (const s of scoped) {
    if (!s.stream) return s;
    first ??= s;
  }
  return first;
}
