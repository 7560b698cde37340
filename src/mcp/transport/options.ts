/**
 * What the MCP transport is built from (compose.ts gives it): its dependencies and its tunables.
 * The transport itself is router.ts.
 */
import type { Config } from '../../config.js';
import type { UpstreamCaller } from '../../domain/upstream-call.js';
import type { Logger } from '../../logger.js';
import type { CallRecorder } from '../call-recorder.js';
import type { GuardrailStage } from '../guardrail-stage.js';
import type { SharedSessions } from '../sessions.js';

/** Tunables of the MCP endpoints (defaults suit production; tests shorten them). */
export interface McpOptions {
  /** Tools per `tools/list` page. */
  toolsPageSize?: number;
  /** A session unused this long ends. */
  sessionIdleMs?: number;
  /** Backstop timeout of one upstream call. */
  callTimeoutMs?: number;
  /** A call still running after this long is answered as an SSE stream. */
  slowResponseMs?: number;
  /** How long an upstream request that asked a 2026-07-28 caller for input waits for the retry. */
  inputWaitMs?: number;
  /** After an upstream asks for input, how long to wait for its other requests of the same round. */
  inputGatherMs?: number;
  /** How long a `requestState` of an input-required result is honoured. */
  requestStateTtlMs?: number;
}

export interface McpTransportDeps {
  upstreams: UpstreamCaller;
  recorder: CallRecorder;
  logger: Logger;
  /** Redaction and interceptors of tool calls (absent: none). */
  guardrails?: GuardrailStage;
  config: Pick<Config, 'allowedOrigins' | 'publicUrl' | 'bodyLimitBytes' | 'host'> & Partial<Pick<Config, 'mcpMaxSessionsPerKey'>>;
  version: string;
  /** Where stateful sessions are shared with the other instances (Redis); absent: this instance only. */
  sharedSessions?: SharedSessions;
  options?: McpOptions;
  /** HMAC key of input-required `requestState` (derived from the master key; random when absent). */
  stateKey?: Buffer;
}
