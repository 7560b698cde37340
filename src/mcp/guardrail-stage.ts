import {
  INTERCEPTOR_SIGNATURE_HEADER,
  INTERCEPTOR_TIMESTAMP_HEADER,
  interceptorSignature,
  parseInterceptorDecision,
  type Interception,
  type InterceptionOutcome,
  type Interceptor,
  type InterceptorPhase,
} from '../domain/guardrails.js';
import { resultText } from '../domain/result-text.js';
import type { ToolCallResult } from '../domain/upstream-call.js';
import type { GuardrailPlan, Guardrails } from '../live/guardrails.js';
import type { Logger } from '../logger.js';

/**
 * The guardrail stage of `tools/call`, one for both routes (a bundle's endpoint, the gateway and
 * its `execute`): the caller's arguments are redacted and shown to the "before" interceptors
 * before the upstream is called; the result is redacted and shown to the "after" interceptors
 * before the caller sees it. What it did is noted for the call record (redactions counted, each
 * interceptor's decision).
 *
 * The path without interceptors is synchronous and cheap: a result that arrived with its JSON
 * text is judged by one prefix test over that text (src/domain/redaction.ts) and, when nothing in
 * it can be a secret, passed on untouched (its text spliced into the answer as before); only when
 * the test hits are its string leaves walked and redacted. Interceptors are webhooks
 * (src/domain/guardrails.ts): signed POSTs under the outbound-address policy, each with its own
 * timeout and failure mode.
 */

/** The call as guardrails and interceptors see it. */
export interface GuardedCall {
  readonly endpoint: 'bundle' | 'gateway';
  readonly bundleId: string;
  readonly serverId: string;
  readonly serverName: string;
  /** The tool's name as the caller knows it. */
  readonly toolName: string;
  /** The tool's upstream name. */
  readonly upstreamName: string;
  readonly userId: string | null;
}

/** What the stage did to one call, for its record. */
export interface CallNotes {
  redactions: number;
  interceptions: Interception[] | undefined;
}

/** A call an interceptor refused (it rejected it, or it failed and fails closed). */
export interface InterceptorRefusal {
  readonly interceptor: Interceptor;
  readonly phase: InterceptorPhase;
  /** True when the interceptor failed (and fails closed) rather than rejected. */
  readonly failed: boolean;
  /** The interceptor's message, or why it failed. */
  readonly message: string | null;
}

/** `fetch` under the outbound-address policy (compose.ts passes OutboundPolicy.fetch). */
export type GuardedFetch = (url: string, init: RequestInit) => Promise<Response>;

/** The largest interceptor answer read (bytes of text); a longer one is a failure. */
const MAX_ANSWER_CHARS = 4 * 1024 * 1024;

export class GuardrailStage {
  constructor(
    private readonly deps: {
      guardrails: Guardrails;
      fetch: GuardedFetch;
      logger: Logger;
    },
  ) {}

  /** The plan of calls through a bundle. */
  planFor(bundleId: string): GuardrailPlan {
    return this.deps.guardrails.planFor(bundleId);
  }

  /** The caller's arguments with secrets (and personal data, when asked) redacted; counted in `notes`. */
  redactArguments(plan: GuardrailPlan, args: Record<string, unknown>, notes: CallNotes): Record<string, unknown> {
    if (!plan.redactor) return args;
    const r = plan.redactor.redactValue(args);
    notes.redactions += r.count;
    return r.value;
  }

  /**
   * The result with secrets (and personal data, when asked) redacted; counted in `notes`. A result
   * that kept the upstream's JSON text is judged by that text first: when it cannot hold anything
   * to redact it is returned as it is (no walk, no copy).
   */
  redactResult(plan: GuardrailPlan, result: ToolCallResult, notes: CallNotes): ToolCallResult {
    const redactor = plan.redactor;
    if (!redactor) return result;
    const text = resultText(result);
    if (text !== undefined && !redactor.mayMatch(text)) return result;
    const r = redactor.redactValue(result);
    notes.redactions += r.count;
    return r.value;
  }

  /**
   * Runs the "before" interceptors in order with the (redacted) arguments; each may replace them.
   * Resolves the arguments to call with, or the refusal of the first interceptor that refuses.
   */
  async before(
    plan: GuardrailPlan,
    call: GuardedCall,
    args: Record<string, unknown>,
    notes: CallNotes,
  ): Promise<{ args: Record<string, unknown> } | { refused: InterceptorRefusal }> {
    let current = args;
    for (const interceptor of plan.before) {
      const outcome = await this.ask(interceptor, 'before', call, { arguments: current }, notes);
      if ('refused' in outcome) return outcome;
      if (outcome.arguments) current = plan.redactor ? this.redactArguments(plan, outcome.arguments, notes) : outcome.arguments;
    }
    return { args: current };
  }

  /** Runs the "after" interceptors in order with the (redacted) result; each may replace it. */
  async after(
    plan: GuardrailPlan,
    call: GuardedCall,
    args: Record<string, unknown>,
    result: ToolCallResult,
    notes: CallNotes,
  ): Promise<{ result: ToolCallResult } | { refused: InterceptorRefusal }> {
    let current = result;
    for (const interceptor of plan.after) {
      const outcome = await this.ask(interceptor, 'after', call, { arguments: args, result: current }, notes);
      if ('refused' in outcome) return outcome;
      if (outcome.result) current = outcome.result as ToolCallResult;
    }
    return { result: current };
  }

  /** One interceptor's decision, noted; a failure is a refusal or nothing, as its failure mode says. */
  private async ask(
    interceptor: Interceptor,
    phase: InterceptorPhase,
    call: GuardedCall,
    payload: { arguments: Record<string, unknown>; result?: ToolCallResult },
    notes: CallNotes,
  ): Promise<{ arguments?: Record<string, unknown>; result?: Record<string, unknown> } | { refused: InterceptorRefusal }> {
    const note = (outcome: InterceptionOutcome, detail?: string | null): void => {
      (notes.interceptions ??= []).push({
        interceptor_id: interceptor.id,
        interceptor_name: interceptor.name,
        phase,
        outcome,
        ...(detail ? { detail: detail.slice(0, 300) } : {}),
      });
    };
    let answer: unknown;
    try {
      answer = await this.postInTime(interceptor, phase, call, payload);
    } catch (err) {
      const reason = err instanceof Error ? failureReason(err) : 'it failed';
      this.deps.logger.warn({ interceptor: interceptor.id, phase, reason }, 'guardrail interceptor failed');
      if (interceptor.failureMode === 'open') {
        note('failed_open', reason);
        return {};
      }
      note('failed_closed', reason);
      return { refused: { interceptor, phase, failed: true, message: reason } };
    }
    const decision = parseInterceptorDecision(answer, phase);
    if ('problem' in decision) {
      const reason = `invalid answer: ${decision.problem}`;
      if (interceptor.failureMode === 'open') {
        note('failed_open', reason);
        return {};
      }
      note('failed_closed', reason);
      return { refused: { interceptor, phase, failed: true, message: reason } };
    }
    switch (decision.action) {
      case 'allow':
        note('allow');
        return {};
      case 'reject':
        note('reject', decision.message);
        return { refused: { interceptor, phase, failed: false, message: decision.message } };
      case 'rewrite':
        note('rewrite');
        return phase === 'before' ? { arguments: decision.arguments! } : { result: decision.result! };
    }
  }

  /**
   * The POST within the interceptor's timeout, all of it: the address check (a DNS lookup), the
   * connection, the answer and its body.
   */
  private postInTime(
    interceptor: Interceptor,
    phase: InterceptorPhase,
    call: GuardedCall,
    payload: { arguments: Record<string, unknown>; result?: ToolCallResult },
  ): Promise<unknown> {
    const signal = AbortSignal.timeout(interceptor.timeoutMs);
    const timedOut = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
    );
    // Whichever settles first; the other is let go (its rejection handled).
    timedOut.catch(() => undefined);
    return Promise.race([this.post(interceptor, phase, call, payload, signal), timedOut]);
  }

  /** The signed POST; resolves the parsed answer of a 2xx, throws otherwise. */
  private async post(
    interceptor: Interceptor,
    phase: InterceptorPhase,
    call: GuardedCall,
    payload: { arguments: Record<string, unknown>; result?: ToolCallResult },
    signal: AbortSignal,
  ): Promise<unknown> {
    const body = JSON.stringify({
      phase,
      interceptor: { id: interceptor.id, name: interceptor.name },
      endpoint: call.endpoint,
      bundle_id: call.bundleId,
      server: { id: call.serverId, name: call.serverName },
      tool: { name: call.toolName, upstream_name: call.upstreamName },
      user_id: call.userId,
      arguments: payload.arguments,
      ...(payload.result ? { result: payload.result } : {}),
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const res = await this.deps.fetch(interceptor.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'toolgate-interceptor',
        [INTERCEPTOR_TIMESTAMP_HEADER]: timestamp,
        [INTERCEPTOR_SIGNATURE_HEADER]: interceptorSignature(interceptor.secret, timestamp, body),
      },
      body,
      signal,
    });
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel();
      throw new InterceptorHttpError(`it answered HTTP ${res.status}`);
    }
    const text = await res.text();
    if (text.length > MAX_ANSWER_CHARS) throw new InterceptorHttpError('its answer is too large');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new InterceptorHttpError('its answer is not JSON');
    }
  }
}

class InterceptorHttpError extends Error {}

/** Why an interceptor failed, in words fit for a record and the caller (never the URL or secret). */
function failureReason(err: Error): string {
  if (err instanceof InterceptorHttpError) return err.message;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'no answer in time';
  if (err.name === 'OutboundRefusedError') return `its address is refused by the outbound-address policy`;
  return 'it could not be reached';
}
