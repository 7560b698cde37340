import type { Interception } from './guardrails.js';

/**
 * Outcome of one `tools/call`. Every status but `ok` is a failed call; `rejected` is the caller's
 * mistake, refused by the gateway before any upstream was called (an argument the bundle pins or
 * hides), so it never counts against the upstream server's error rate; `denied` is the tool
 * policy's decision (a rule denied the call; the upstream was not called), likewise apart.
 */
export type CallStatus = 'ok' | 'tool_error' | 'error' | 'timeout' | 'cancelled' | 'rejected' | 'denied';

/** Whether a call's outcome counts as an error of its upstream server (dashboard, metrics). */
export function isServerError(status: CallStatus): boolean {
  return status !== 'ok' && status !== 'rejected' && status !== 'denied';
}

/** One recorded `tools/call` (the dashboard reads these). */
export interface CallRecord {
  occurred_at: Date;
  endpoint: 'bundle' | 'gateway';
  bundle_id: string | null;
  server_id: string | null;
  /** The server's name when the call was made (kept readable after a rename or delete). */
  server_name: string | null;
  tool_id: string | null;
  /** The tool's real (upstream) name. */
  tool_name: string;
  user_id: string | null;
  api_key_id: string | null;
  /** The OAuth client whose access token made the call (its client id), when one did. */
  oauth_client_id: string | null;
  status: CallStatus;
  latency_ms: number;
  error: string | null;
  /** Values the guardrails redacted in the call's arguments and result (absent: none). */
  redactions?: number;
  /** What the guardrail interceptors decided, in order (absent: none was asked). */
  interceptions?: readonly Interception[] | undefined;
}

/** Where the call recorder writes its batches (the call-records store; tests supply fakes). */
export interface CallRecordSink {
  insertMany(records: readonly CallRecord[]): Promise<void>;
}
