/**
 * Domain errors. They carry a stable machine code and a message safe to show a caller; they know
 * nothing of HTTP. `src/http/error-mapping.ts` is the one table that turns them into responses.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, code = 'bad_request') {
    super(code, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required', code = 'unauthorized') {
    super(code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Your role does not allow this operation', code = 'forbidden') {
    super(code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found', code = 'not_found') {
    super(code, message);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(
    readonly allowed: readonly string[],
    message = 'Method not allowed on this path',
  ) {
    super('method_not_allowed', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict') {
    super(code, message);
  }
}

export class GoneError extends AppError {
  constructor(message: string, code = 'gone') {
    super(code, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body too large', code = 'payload_too_large') {
    super(code, message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Content-Type must be application/json', code = 'unsupported_media_type') {
    super(code, message);
  }
}

export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly limit: number,
    message = 'Rate limit exceeded',
  ) {
    super('rate_limited', message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(
    message = 'Service temporarily unavailable',
    readonly retryAfterSeconds = 5,
    code = 'service_unavailable',
  ) {
    super(code, message);
  }
}

/** An external system the operation depends on (an OAuth provider, a catalog) failed. */
export class BadGatewayError extends AppError {
  constructor(message: string, code = 'bad_gateway') {
    super(code, message);
  }
}

export class NotImplementedError extends AppError {
  constructor(message = 'Not implemented yet', code = 'not_implemented') {
    super(code, message);
  }
}

/** One entry of a 422 body: where, what, and the offending input (secrets redacted). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** A request that fails validation; answered 422 with the spec's `detail` array. */
export class RequestValidationError extends AppError {
  constructor(readonly issues: ValidationIssue[]) {
    super('validation_error', 'Request validation failed');
  }
}
