/**
 * The contract between the MCP session store (src/mcp/sessions.ts) and the store that shares
 * stateful sessions between the instances of a deployment (src/redis/shared-sessions.ts): what a
 * session's record holds, and what the shared store does with it.
 */

/** An MCP logging level (`logging/setLevel`). */
export type McpLogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/**
 * What another instance needs to serve a session opened here: its binding and the state the
 * client negotiated. Not its GET stream or replay log (those live where the stream is open).
 */
export interface SessionRecord {
  readonly id: string;
  readonly scope: string;
  readonly credential: string;
  readonly protocolVersion: string;
  readonly initialized: boolean;
  readonly clientCapabilities?: Record<string, unknown>;
  readonly logLevel?: McpLogLevel;
}

/**
 * Sessions shared between the instances of one deployment (src/redis/shared-sessions.ts keeps them
 * in Redis). The local store stays the first place a request looks: a session known here is served
 * without asking; only an id this instance has never seen is looked up.
 */
export interface SharedSessions {
  /** Stores (or replaces) a session's record; it lives `ttlMs` unless touched. Never rejects. */
  save(record: SessionRecord, ttlMs: number): Promise<void>;
  /** The record of a session opened on another instance, or undefined (unknown, ended, expired, unreachable). */
  load(id: string): Promise<SessionRecord | undefined>;
  /** Extends the life of sessions used on this instance since the last touch (one batched round trip). */
  touch(ids: readonly string[], ttlMs: number): void;
  /** Ends a session everywhere: forgets its record and tells the other instances. */
  end(id: string): void;
  /** Listens for sessions ended on other instances. */
  onEnded(listener: (id: string) => void): () => void;
  close(): Promise<void>;
}
