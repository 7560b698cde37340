/** Outcome of one `tools/call`. */
export type CallStatus = 'ok' | 'tool_error' | 'error' | 'timeout' | 'cancelled';

/** One recorded `tools/call` (the dashboard reads these). */
export interface CallRecord {
  occurred_at: Date;
  endpoint: 'bundle' | 'gateway';
  bundle_id: string | null;
  server_id: string | null;
  tool_id: string | null;
  /** The tool's real (upstream) name. */
  tool_name: string;
  user_id: string | null;
  api_key_id: string | null;
  status: CallStatus;
  latency_ms: number;
  error: string | null;
}

/** Where the call recorder writes its batches (the call-records store; tests supply fakes). */
export interface CallRecordSink {
  insertMany(records: readonly CallRecord[]): Promise<void>;
}
