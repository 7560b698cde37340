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
    ? unknown
    : undefined;

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
  /** Raw access for the few operations that stream (SSE); most handlers never touch it. */
  readonly raw: { setCookie(name: string, value: string, options: CookieOptions): void; stream?: NodeJS.WritableStream };
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
