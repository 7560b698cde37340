import type { operations } from '../generated/openapi.js';
import type { RestOperationId } from '../generated/operation-index.js';
import type { Principal } from '../domain/principal.js';

type Op<K extends keyof operations> = operations[K];
type Section<K extends keyof operations, S extends string> =
  Op<K>['parameters'] extends Record<S, infer P> ? (P extends undefined ? Record<string, never> : NonNullable<P>) : Record<string, never>;

/** Path parameters of an operation, as the contract declares them. */
export type PathParams<K extends keyof operations> = Section<K, 'path'>;
/** Query parameters of an operation, defaults applied by the validator. */
export type QueryParams<K extends keyof operations> = Section<K, 'query'>;

/** The JSON request body of an operation (`undefined` when it takes none). */
export type RequestBody<K extends keyof operations> = Op<K>['requestBody'] extends infer B
  ? B extends { content: { 'application/json': infer J } }
    ? J
    : undefined
  : undefined;

type Responses<K extends keyof operations> = Op<K>['responses'];
type SuccessStatus<K extends keyof operations> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204 | 302 | 303>;
type BodyOf<R> = R extends { content: { 'application/json': infer J } }
  ? J
  : R extends { content: { 'text/event-stream': unknown } }
    ? SseStream
    : R extends { content: { 'text/plain': infer T } }
      ? T
      : undefined;

/** One server-sent event: its kind (the `event:` line) and its JSON payload (the `data:` line). */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

/**
 * The body of an operation that answers `text/event-stream`. The dispatcher sends the headers at
 * once, then writes and flushes each event as the iterable yields it (no buffering). When the
 * client goes away the request's `signal` aborts and the dispatcher stops pulling; a value thrown
 * by the iterable becomes a last `error` event `{code, detail}` (as in ErrorResponse).
 */
export interface SseStream {
  readonly kind: 'sse';
  readonly events: AsyncIterable<SseEvent>;
}

/** Wraps events as an SSE body (`{status: 200, body: sseStream(events)}`). */
export function sseStream(events: AsyncIterable<SseEvent>): SseStream {
  return { kind: 'sse', events };
}

/** Whether a handler's body is an event stream. */
export function isSseStream(body: unknown): body is SseStream {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'sse' && 'events' in body;
}

/**
 * What a handler returns: a success status the contract declares for the operation and the body
 * of that status. Errors are thrown as domain errors (src/errors.ts), never returned.
 */
export type HandlerResult<K extends keyof operations> = {
  [S in SuccessStatus<K>]: {
    status: S;
    body: BodyOf<Responses<K>[S]>;
    headers?: Record<string, string | string[]>;
  };
}[SuccessStatus<K>];

/** What a handler receives: validated, typed input and the authenticated caller. */
export interface HandlerRequest<K extends keyof operations> {
  readonly operationId: K;
  readonly params: PathParams<K>;
  readonly query: QueryParams<K>;
  readonly body: RequestBody<K>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly cookies: Readonly<Record<string, string | undefined>>;
  /** The authenticated caller; `null` only on public operations. */
  readonly principal: Principal | null;
  readonly requestId: string;
  /** Client address as seen by the server. */
  readonly ip: string;
  /** Aborted when the client goes away (for streams and long calls). */
  readonly signal: AbortSignal;
  /** Raw access to the response: cookies. (Streams are returned as an `SseStream` body.) */
  readonly raw: { setCookie(name: string, value: string, options: CookieOptions): void };
}

export interface CookieOptions {
  httpOnly?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
  secure?: boolean;
  maxAge?: number;
  path?: string;
  expires?: Date;
}

/** A handler for one operation. */
export type Handler<K extends keyof operations> = (req: HandlerRequest<K>) => Promise<HandlerResult<K>>;

/**
 * One handler per REST operation of the contract: a missing or an extra key fails `tsc`, and the
 * boot (openapi-backend `strict: true`).
 */
export type HandlerMap = { [K in RestOperationId]: Handler<K> };

/** A subset of the map, as each `src/handlers/<tag>.ts` file provides. */
export type PartialHandlerMap<K extends RestOperationId> = { [P in K]: Handler<P> };

/** The result of an operation that answers 204 (`.then(noContent)` after the service call). */
export function noContent(): { status: 204; body: undefined } {
  return { status: 204, body: undefined };
}
