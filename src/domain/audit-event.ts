/**
 * One audit event as the gateway exports it to a SIEM (OTLP logs, a JSON-lines file, a webhook):
 * a recorded tool call or an entry of the admin activity log, with who did it, what, on what, how
 * it went and how long it took. Never argument values, results, error texts or secrets: an error
 * is named by its outcome only (error messages of upstreams may quote arguments).
 */
export interface AuditEvent {
  /** Position in the export order (the shared `audit_seq`); a sink's cursor moves past it once delivered. */
  readonly seq: number;
  readonly kind: 'tool_call' | 'activity';
  /** ISO 8601 time it happened. */
  readonly time: string;
  readonly actor: {
    readonly user_id: string | null;
    readonly email: string | null;
    readonly name: string | null;
    /** The API key used (its id, never the key), when one was. */
    readonly api_key_id: string | null;
    /** The OAuth client (its client id) whose access token made the call, when one did. */
    readonly oauth_client_id: string | null;
  };
  /** `tools/call`, or the activity's action (`bundle.create`, `api_key.rotate`, …). */
  readonly action: string;
  readonly target: {
    readonly type: string | null;
    readonly id: string | null;
    readonly name: string | null;
    /** Tool calls: the upstream server and the bundle the call went through. */
    readonly server_id?: string | null;
    readonly server_name?: string | null;
    readonly bundle_id?: string | null;
  };
  /**
   * Tool calls: `ok`, `tool_error`, `error`, `timeout`, `cancelled`, `rejected` (the caller's
   * mistake), `denied` (the tool policy's decision); activity: `success`, `error`.
   */
  readonly outcome: string;
  /** Tool calls: the endpoint the call came through (`bundle`, `gateway`). */
  readonly endpoint?: string;
  readonly latency_ms?: number;
  /** Tool calls: how many values the guardrails redacted in the call's arguments and result. */
  readonly redactions?: number;
  /** Tool calls: each guardrail interceptor's decision, when one was asked (never its message). */
  readonly interceptions?: readonly { interceptor_id: string; interceptor_name: string; phase: string; outcome: string }[];
  /** Activity: the entry's facts (ids, names, counts, flags; the activity log never holds a secret there). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What the exporter does while it holds the export lock: read events, read and move cursors. */
export interface AuditExportSession {
  /** Up to `limit` events numbered above `after`, in number order (tool calls and activity merged). */
  events(after: number, limit: number): Promise<AuditEvent[]>;
  /** How far `sink` has delivered (0 when it never has). */
  cursor(sink: string): Promise<number>;
  /** Records that `sink` has delivered every event up to `position`. */
  advance(sink: string, position: number): Promise<void>;
  /** The highest number given to an event so far (0 when none). */
  head(): Promise<number>;
}

/** Where audit events are read from (the audit-export store): one instance at a time. */
export interface AuditEventSource {
  /** Runs `fn` holding the export lock; resolves `undefined` without running it when another instance holds it. */
  exclusive<T>(fn: (session: AuditExportSession) => Promise<T>): Promise<T | undefined>;
}
