import {
  AppError,
  BadGatewayError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GoneError,
  MethodNotAllowedError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  RateLimitedError,
  RequestValidationError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { isConnectionError } from '../lib/database-errors.js';

/** An error turned into an HTTP answer. */
export interface ErrorReply {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** True when the error is not the caller's fault and deserves an error log line. */
  internal: boolean;
}

/** The one table of domain error → status. Order matters only for subclasses. */
const STATUS: [new (...args: never[]) => AppError, number][] = [
  [RequestValidationError, 422],
  [BadRequestError, 400],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [MethodNotAllowedError, 405],
  [ConflictError, 409],
  [GoneError, 410],
  [PayloadTooLargeError, 413],
  [UnsupportedMediaTypeError, 415],
  [RateLimitedError, 429],
  [NotImplementedError, 501],
  [BadGatewayError, 502],
  [ServiceUnavailableError, 503],
];

/**
 * Maps any thrown value to a status and a body in the contract's shapes: 422 with `detail[]` for
 * validation errors, ErrorResponse for the rest. Unknown errors become a 500 whose body says
 * nothing of the cause (the log has it); database outages become 503 with Retry-After.
 */
export function toErrorReply(err: unknown, requestId: string): ErrorReply {
  if (err instanceof RequestValidationError) {
    return { status: 422, body: { detail: err.issues }, headers: {}, internal: false };
  }
  if (err instanceof AppError) {
    const status = STATUS.find(([cls]) => err instanceof cls)?.[1] ?? 500;
    const headers: Record<string, string> = {};
    if (err instanceof UnauthorizedError) headers['WWW-Authenticate'] = 'Bearer realm="toolgate"';
    if (err instanceof RateLimitedError) {
      headers['Retry-After'] = String(err.retryAfterSeconds);
      headers['RateLimit-Limit'] = String(err.limit);
      headers['RateLimit-Remaining'] = '0';
      headers['RateLimit-Reset'] = String(err.retryAfterSeconds);
    }
    if (err instanceof MethodNotAllowedError) headers.Allow = err.allowed.join(', ');
    if (err instanceof ServiceUnavailableError) headers['Retry-After'] = String(err.retryAfterSeconds);
    return {
      status,
      body: { detail: err.message, code: err.code, request_id: requestId },
      headers,
      internal: status >= 500 && status !== 501,
    };
  }
  const httpStatus = (err as { status?: unknown; expose?: unknown }).status;
  if (typeof httpStatus === 'number' && httpStatus === 413) {
    return toErrorReply(new PayloadTooLargeError(), requestId);
  }
  if (isConnectionError(err)) {
    const unavailable = new ServiceUnavailableError('The database is unavailable; try again shortly', 5, 'database_unavailable');
    return { ...toErrorReply(unavailable, requestId), internal: true };
  }
  return {
    status: 500,
    body: { detail: 'Internal server error', code: 'internal_error', request_id: requestId },
    headers: {},
    internal: true,
  };
}
