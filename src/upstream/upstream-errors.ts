/**
 * How the failures of an upstream connection are told apart and described: the short, secret-free
 * reason shown as a server's last error, the expired HTTP session (re-initialised, not reported),
 * and the UpstreamError kind (timeout, unavailable, rejected, protocol) a failed request maps to.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { UpstreamError } from '../domain/upstream-call.js';

/** An upstream answered a request with something that is not a valid answer to it. */
export class InvalidAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidAnswerError';
  }
}

/**
 * A JSON-RPC error the upstream itself answered a request with (code, message and data as sent).
 * Its code may be one the SDK also uses for its own failures (-32000 connection closed, -32001
 * timed out): the class, not the code, says it came from the upstream.
 */
export class UpstreamAnswerError extends McpError {
  constructor(
    code: number,
    /** The message as the upstream sent it (McpError's own message carries a prefix). */
    readonly sent: string,
    data?: unknown,
  ) {
    super(code, sent, data);
    this.name = 'UpstreamAnswerError';
  }
}

/** An HTTP upstream refused a request; `challenge` is its `WWW-Authenticate` (an OAuth upstream's 401 or 403). */
export class UpstreamHttpError extends StreamableHTTPError {
  constructor(
    code: number,
    message: string,
    readonly challenge?: string,
    /** The start of the answer's body (a JSON-RPC error, from a 2026-07-28 server). */
    readonly body?: string,
  ) {
    super(code, message);
  }
}

/** Short, secret-free description of a connection failure. */
export function describeError(err: unknown): string {
  if (err instanceof StreamableHTTPError) {
    if (err.code === 401 || err.code === 403) return `upstream refused the credentials (HTTP ${err.code})`;
    return `upstream answered HTTP ${err.code}`.concat(err.code === 404 ? ' (not found)' : '');
  }
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e.cause?.code === 'string' ? e.cause.code : typeof e.code === 'string' ? e.code : undefined;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOENT') return 'command not found';
  if (code === 'EACCES') return 'command not executable';
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return 'upstream did not answer in time';
    if (err.code === ErrorCode.ConnectionClosed) return 'upstream closed the connection';
  }
  let message = typeof e.message === 'string' ? e.message : String(err);
  if (typeof e.cause?.message === 'string' && e.cause.message) message = `${message}: ${e.cause.message}`;
  // Keep it short and free of URLs with credentials or query strings.
  return (
    message
      .replace(/https?:\/\/\S+/g, '<url>')
      .replace(/\s+/g, ' ')
      .slice(0, 300) || 'connection failed'
  );
}

/** True when an HTTP upstream no longer knows our session (it must be re-initialised). */
export function isSessionGone(err: unknown): boolean {
  return err instanceof StreamableHTTPError && err.code === 404;
}

/**
 * The UpstreamError a failed request `what` on server `name` (given `timeoutMs`) becomes.
 * `transportFailed` tells an McpError of the SDK's own (the connection closed, the request timed
 * out) from the same code answered by the upstream: only the former is a transport failure; an
 * upstream's answer reaches the caller as sent.
 */
export function callError(err: unknown, what: string, name: string, timeoutMs: number, transportFailed = true): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (err instanceof McpError) {
    const answered = err instanceof UpstreamAnswerError || !transportFailed;
    if (!answered && err.code === ErrorCode.RequestTimeout)
      return new UpstreamError('timeout', `${what} on "${name}" timed out after ${timeoutMs} ms`);
    if (!answered && err.code === ErrorCode.ConnectionClosed)
      return new UpstreamError('unavailable', `Upstream server "${name}" closed the connection during ${what}`);
    if (err instanceof UpstreamAnswerError)
      return new UpstreamError('rejected', `Upstream server "${name}" rejected ${what}: ${err.sent.slice(0, 500)}`, {
        code: err.code,
        message: err.sent,
        ...(err.data !== undefined ? { data: err.data } : {}),
      });
    return new UpstreamError('rejected', `Upstream server "${name}" rejected ${what}: ${err.message.slice(0, 500)}`, {
      code: err.code,
      message: err.message.replace(/^MCP error -?\d+: /, ''),
      ...(err.data !== undefined ? { data: err.data } : {}),
    });
  }
  // A result that fails its schema (zod's error, whichever zod build the SDK parsed it with).
  if (
    err instanceof InvalidAnswerError ||
    /ZodError$/.test(String((err as { name?: unknown }).name)) ||
    Array.isArray((err as { issues?: unknown }).issues)
  )
    return new UpstreamError('protocol', `Upstream server "${name}" sent an invalid answer to ${what}`);
  const refused = err instanceof UpstreamHttpError && (err.code === 401 || err.code === 403) ? err : undefined;
  return new UpstreamError(
    'unavailable',
    `Upstream server "${name}" is unavailable: ${describeError(err)}`,
    undefined,
    refused ? { status: refused.code ?? 0, challenge: refused.challenge ?? '' } : undefined,
  );
}
