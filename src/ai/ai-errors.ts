import { BadGatewayError } from '../errors.js';

/**
 * What went wrong talking to an AI provider:
 * - `auth` (401: key missing, wrong or revoked), `forbidden` (403: key lacks access),
 * - `model_not_found` (404: the model, or the endpoint, does not exist; the configuration needs fixing),
 * - `rate_limited` (429 after the retries), `unavailable` (5xx after the retries, connection refused/reset),
 * - `timeout` (no answer, or a stalled stream, within `timeout_ms`), `cancelled` (the caller went away),
 * - `refused` (the endpoint is not allowed by the outbound-address policy),
 * - `bad_request` (the vendor rejected the request, 400/413/422), `bad_response` (an answer that is not
 *   the vendor's wire format, or is too large), `invalid_output` (structured output that stayed invalid
 *   after the repair round).
 */
export type AiErrorKind =
  | 'auth'
  | 'forbidden'
  | 'model_not_found'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'cancelled'
  | 'refused'
  | 'bad_request'
  | 'bad_response'
  | 'invalid_output';

/**
 * A provider failure as a domain error (502 when it reaches a REST answer). The message is meant for
 * people and never contains the API key: vendor messages are scrubbed and shortened before they are
 * quoted.
 */
export class AiError extends BadGatewayError {
  constructor(
    readonly kind: AiErrorKind,
    message: string,
    /** The vendor's HTTP status, when there was one. */
    readonly status: number | null = null,
    /** Whether any answer came back from the vendor (false: timeout, cancelled, refused, connection failed). */
    readonly answered: boolean = !['timeout', 'cancelled', 'refused'].includes(kind),
  ) {
    super(message, `ai_${kind}`);
  }

  /** The configuration must change before the provider can work again (the model or endpoint is gone). */
  get needsReconfiguration(): boolean {
    return this.kind === 'model_not_found';
  }
}

/** Thrown by the guarded fetch when a response body grows past the limit (memory guard). */
export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the provider's response exceeded ${limitBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

const KEY_SHAPES = /\b(?:sk|pk|rk|ak|key|sess|tok)[-_][A-Za-z0-9*._-]{6,}/gi;

/**
 * Makes a vendor message safe to show: removes the key (and any fragment of 8 or more of its
 * characters), anything shaped like a key, control characters, and cuts it to `max` characters.
 */
export function scrubVendorMessage(message: string, secrets: readonly (string | null | undefined)[], max = 300): string {
  let out = message.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  for (const secret of secrets) {
    if (!secret) continue;
    out = out.split(secret).join('[redacted]');
    if (secret.length >= 8) {
      out = out
        .split(/(\s+|["'`,;:=/()[\]{}])/)
        .map((token) => (token.length >= 8 && (secret.includes(token) || token.includes(secret)) ? '[redacted]' : token))
        .join('');
    }
  }
  out = out.replace(KEY_SHAPES, '[redacted]').trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}
