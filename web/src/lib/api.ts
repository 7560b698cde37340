import createClient from 'openapi-fetch';
import type { components, paths } from '../../../src/generated/openapi.js';

/** A schema of the contract, by name: `Schema<'MCPServer'>`. */
export type Schema<K extends keyof components['schemas']> = components['schemas'][K];

/** One 422 entry: where (`loc`), what (`msg`), and the machine type. */
export type Issue = Schema<'ValidationError'>;

/**
 * Every failed call: the HTTP status (0 when the server could not be reached), the contract's
 * stable `code`, a message fit to show, and for a 422 the issues with their `loc`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: Issue[] = [],
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The operation exists in the contract but its feature has not landed on this server. */
  get notImplemented(): boolean {
    return this.status === 501;
  }

  static from(status: number, body: unknown, requestId: string | null): ApiError {
    if (status === 422 && body && typeof body === 'object' && Array.isArray((body as { detail?: unknown }).detail)) {
      const issues = (body as { detail: Issue[] }).detail;
      const first = issues[0];
      const msg = issues.length === 1 && first ? first.msg : `${issues.length} fields need attention`;
      return new ApiError(422, 'validation_error', msg, issues, requestId);
    }
    if (body && typeof body === 'object' && typeof (body as { detail?: unknown }).detail === 'string') {
      const b = body as { detail: string; code?: string };
      return new ApiError(status, b.code ?? `http_${status}`, b.detail, [], requestId);
    }
    return new ApiError(status, `http_${status}`, `The server answered ${status}`, [], requestId);
  }
}

type Listener = (err: ApiError) => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when any call answers 401 (the session ended): the app goes back to sign-in. */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * The typed client of the REST API, generated from openapi.yaml (openapi-fetch over the
 * openapi-typescript `paths`). The credential is the HttpOnly `access_token` cookie, which the
 * browser sends by itself; nothing secret is held in script-readable storage.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin', headers: { accept: 'application/json' } });

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * Awaits an openapi-fetch call and returns its data, or throws an ApiError. A 401 also tells
 * the app (unless `quiet401`: the sign-in page probing for a session).
 */
export async function call<T>(request: Promise<FetchResult<T>>, options: { quiet401?: boolean } = {}): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'Cannot reach the Toolgate server. Check your connection and try again.');
  }
  const { response } = result;
  if (response.ok) return result.data as T;
  const error = ApiError.from(response.status, result.error, response.headers.get('x-request-id'));
  if (response.status === 401 && !options.quiet401) for (const l of unauthorizedListeners) l(error);
  throw error;
}

/** A readable message for anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
