import { OutboundRefusedError } from '../lib/outbound-policy.js';
import { AiError, ResponseTooLargeError, scrubVendorMessage } from './ai-errors.js';

/** What a failure mapping needs to know to speak clearly (and to keep the key out of the words). */
export interface FailureContext {
  /** e.g. `OpenAI` or `Ollama at http://127.0.0.1:11434/v1`. */
  label: string;
  model: string;
  apiKey: string | null;
  /** The caller's signal: when it fired, the failure is a cancellation. */
  callerSignal?: AbortSignal | undefined;
  /** True when our own stall timer fired. */
  stalled?: boolean;
  timeoutMs: number;
}

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur; i += 1) {
    out.push(cur);
    cur = (cur as { cause?: unknown }).cause;
  }
  return out;
}

/** The vendor's own words from an SDK APIError body (OpenAI `{error:{message}}`, Anthropic `{type,error:{message}}`). */
function vendorMessage(body: unknown): string | null {
  if (!body || typeof body !== 'object') return typeof body === 'string' ? body : null;
  const b = body as Record<string, unknown>;
  if (typeof b.message === 'string') return b.message;
  const inner = b.error;
  if (typeof inner === 'string') return inner;
  if (inner && typeof inner === 'object' && typeof (inner as Record<string, unknown>).message === 'string')
    return (inner as Record<string, string>).message!;
  if (typeof b.detail === 'string') return b.detail;
  return null;
}

/**
 * Turns anything an SDK call threw into an AiError with a message a person can act on. Works on
 * both SDKs (Stainless-generated: `status`, `error`, `APIConnectionTimeoutError`, `APIUserAbortError`)
 * by shape, so one table covers every adapter. The API key never survives into the message.
 */
export function toAiError(err: unknown, ctx: FailureContext): AiError {
  if (err instanceof AiError) return err;
  const chain = causes(err);
  const name = (e: unknown) => (e as { constructor?: { name?: string } })?.constructor?.name ?? '';
  if (ctx.callerSignal?.aborted) return new AiError('cancelled', `The request to ${ctx.label} was cancelled`);
  if (ctx.stalled || chain.some((e) => name(e) === 'APIConnectionTimeoutError'))
    return new AiError('timeout', `${ctx.label} did not answer within ${ctx.timeoutMs} ms (config.timeout_ms)`);
  const tooLarge = chain.find((e): e is ResponseTooLargeError => e instanceof ResponseTooLargeError);
  if (tooLarge) return new AiError('bad_response', `${ctx.label} sent a response larger than ${tooLarge.limitBytes} bytes; it was cut off`);
  const refused = chain.find((e): e is OutboundRefusedError => e instanceof OutboundRefusedError);
  if (refused)
    return new AiError(
      'refused',
      `The endpoint of ${ctx.label} is not allowed by the outbound-address policy (${refused.message}); add its host to TOOLGATE_OUTBOUND_ALLOWLIST`,
    );
  if (chain.some((e) => name(e) === 'APIUserAbortError')) return new AiError('cancelled', `The request to ${ctx.label} was cancelled`);
  const status = (err as { status?: unknown }).status;
  const said = vendorMessage((err as { error?: unknown }).error);
  const quoted = said ? `: ${scrubVendorMessage(said, [ctx.apiKey])}` : '';
  if (typeof status === 'number') {
    if (status === 401) return new AiError('auth', `${ctx.label} rejected the API key (401)${quoted}; set a valid api_key`, status);
    if (status === 403) return new AiError('forbidden', `${ctx.label} refused access (403)${quoted}`, status);
    if (status === 404)
      return new AiError(
        'model_not_found',
        `${ctx.label} answered 404${quoted}: the model "${ctx.model}" does not exist there, or the endpoint is wrong`,
        status,
      );
    if (status === 429)
      return new AiError('rate_limited', `${ctx.label} is rate limiting requests (429)${quoted}; try again later`, status);
    if (status >= 500) return new AiError('unavailable', `${ctx.label} failed (${status})${quoted}; try again later`, status);
    if (status >= 300 && status < 400)
      return new AiError(
        'bad_response',
        `${ctx.label} redirected (${status}); redirects are not followed, set the final URL as endpoint`,
        status,
      );
    return new AiError('bad_request', `${ctx.label} rejected the request (${status})${quoted}`, status);
  }
  if (said) {
    // An error event inside a stream (no HTTP status): the vendor gave up mid-answer.
    return new AiError('unavailable', `${ctx.label} reported an error while answering${quoted}`);
  }
  if (chain.some((e) => name(e) === 'APIConnectionError' || (e as { code?: string }).code === 'ECONNREFUSED'))
    return new AiError('unavailable', `Could not connect to ${ctx.label}; check the endpoint and that the server runs`, null, false);
  if (chain.some((e) => e instanceof SyntaxError || /JSON/i.test((e as Error)?.message ?? '')))
    return new AiError('bad_response', `${ctx.label} sent an answer that is not valid JSON (is the endpoint an OpenAI-compatible API?)`);
  return new AiError('bad_response', `${ctx.label} sent an answer that could not be understood`);
}

/**
 * A signal for one vendor call that fires when the caller's does, or when the stream stalls for
 * `idleMs` (`touch()` on every chunk re-arms it). `stalled` tells the two apart afterwards.
 */
export class CallDeadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly onCallerAbort = () => this.controller.abort(this.caller?.reason);
  stalled = false;

  constructor(
    private readonly caller: AbortSignal | undefined,
    private readonly idleMs: number,
  ) {
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Re-arms the stall timer (a chunk arrived). */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.controller.abort(new Error('stalled'));
    }, this.idleMs);
    this.timer.unref();
  }

  /** True when the call was ended from outside (caller gone or stalled) rather than by the vendor. */
  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** A logger for the SDKs that says nothing: their console output could quote request data. */
export const SILENT_SDK_LOGGER = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};
