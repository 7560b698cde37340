import { createHmac } from 'node:crypto';
import { isToolCallResult } from './upstream-call.js';

/**
 * Guardrails: what the gateway does to every tool call's arguments (before the upstream is
 * called) and result (after), besides the tool policy. Two kinds, per bundle or global:
 *
 * - **Redaction** of secrets (on by default) and personal data (off by default) in arguments and
 *   results (src/domain/redaction.ts), counted in the call record.
 * - **Interceptors**: webhooks an admin registers, called before and/or after a call with the
 *   call's facts, which allow it, reject it with a message, or rewrite its arguments or result.
 *   Requests are signed (HMAC-SHA256 of `<timestamp>.<body>` with the interceptor's secret) and
 *   sent under the outbound-address policy; an interceptor that fails (no answer in its timeout,
 *   a refused address, an answer that is not a decision) lets the call through or rejects it, as
 *   its `failure_mode` says. Each decision is recorded with the call.
 *
 * This file holds the shapes every layer shares and the pure rules: resolving the effective
 * redaction of a bundle, signing a request, and validating an interceptor's answer.
 */

/** The redaction settings of the installation, or a bundle's override (null: as the installation). */
export interface RedactionSettings {
  readonly redact_secrets: boolean;
  readonly redact_pii: boolean;
}

/** A bundle's own redaction settings: each null follows the installation's. */
export interface BundleRedactionSettings {
  readonly redact_secrets: boolean | null;
  readonly redact_pii: boolean | null;
}

/** The installation's defaults: secrets redacted, personal data left alone. */
export const DEFAULT_REDACTION: RedactionSettings = { redact_secrets: true, redact_pii: false };

/** A bundle's effective redaction: its own settings where it has them, else the installation's. */
export function effectiveRedaction(global: RedactionSettings, bundle: BundleRedactionSettings | undefined): RedactionSettings {
  if (!bundle) return global;
  return {
    redact_secrets: bundle.redact_secrets ?? global.redact_secrets,
    redact_pii: bundle.redact_pii ?? global.redact_pii,
  };
}

export type InterceptorPhase = 'before' | 'after';
export type InterceptorFailureMode = 'open' | 'closed';

/** An interceptor as the gateway calls it (its secret opened). */
export interface Interceptor {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly secret: string;
  readonly phases: readonly InterceptorPhase[];
  /** Bundle ids it applies to; empty: every bundle (global). */
  readonly bundles: readonly string[];
  readonly timeoutMs: number;
  readonly failureMode: InterceptorFailureMode;
  readonly enabled: boolean;
  /** Order among the interceptors of a phase: ascending, then by id. */
  readonly priority: number;
}

/**
 * What an interceptor decided for one call, as the call record keeps it: `allow`, `reject`,
 * `rewrite`, or, when it failed, `failed_open` (the call went on) or `failed_closed` (refused).
 */
export type InterceptionOutcome = 'allow' | 'reject' | 'rewrite' | 'failed_open' | 'failed_closed';

export interface Interception {
  readonly interceptor_id: string;
  readonly interceptor_name: string;
  readonly phase: InterceptorPhase;
  readonly outcome: InterceptionOutcome;
  /** Why it failed, or the rejection's message (at most 300 characters). */
  readonly detail?: string;
}

/** The signature header: `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export const INTERCEPTOR_SIGNATURE_HEADER = 'x-toolgate-signature';
/** The timestamp header: seconds since the epoch, as signed. */
export const INTERCEPTOR_TIMESTAMP_HEADER = 'x-toolgate-timestamp';

/** The signature of a request body sent at `timestamp` (seconds since the epoch, as text). */
export function interceptorSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The longest message of a rejection that is passed on to the caller. */
export const MAX_REJECTION_MESSAGE = 1000;

/** An interceptor's decision, validated. */
export type InterceptorDecision =
  | { readonly action: 'allow' }
  | { readonly action: 'reject'; readonly message: string | null }
  | { readonly action: 'rewrite'; readonly arguments?: Record<string, unknown>; readonly result?: Record<string, unknown> };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Validates an interceptor's answer for a phase: `{"action": "allow"}`, `{"action": "reject",
 * "message"?: string}`, or `{"action": "rewrite", "arguments": {...}}` before a call /
 * `{"action": "rewrite", "result": CallToolResult}` after it. Returns the decision, or the problem
 * in words.
 */
export function parseInterceptorDecision(body: unknown, phase: InterceptorPhase): InterceptorDecision | { problem: string } {
  if (!isPlainObject(body)) return { problem: 'the answer is not a JSON object' };
  switch (body.action) {
    case 'allow':
      return { action: 'allow' };
    case 'reject': {
      if (body.message !== undefined && body.message !== null && typeof body.message !== 'string')
        return { problem: 'message must be a string' };
      const message = typeof body.message === 'string' ? body.message.slice(0, MAX_REJECTION_MESSAGE) : null;
      return { action: 'reject', message };
    }
    case 'rewrite':
      if (phase === 'before') {
        if (!isPlainObject(body.arguments)) return { problem: 'a rewrite before the call must give arguments (an object)' };
        return { action: 'rewrite', arguments: body.arguments };
      }
      if (!isToolCallResult(body.result)) return { problem: 'a rewrite after the call must give result (a CallToolResult)' };
      return { action: 'rewrite', result: body.result };
    default:
      return { problem: 'action must be allow, reject or rewrite' };
  }
}
