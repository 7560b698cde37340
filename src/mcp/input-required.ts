import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DownstreamRpcError, relayedCapabilities, type CallSignal, type DownstreamPeer } from '../domain/upstream-call.js';
import { LOG_LEVELS, type LogLevel } from './client-requests.js';
import { RpcCode } from './protocol.js';

/** Requests that may answer a 2026-07-28 caller with an input-required result (SEP-2322). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * `_meta` key an upstream may set on a server-to-client request to name it: the key of the
 * request in `inputRequests` (and of its answer in `inputResponses`). Without it the gateway
 * names the request after its content, so the same question asked again gets the same key.
 */
export const META_INPUT_KEY = 'toolgate/inputKey';

/** Which client capability a server-to-client request needs. */
const CAPABILITY_OF: Record<string, 'sampling' | 'elicitation' | 'roots'> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};
const KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Tunables of input-required exchanges. */
export interface InputRequiredOptions {
  /** HMAC key of `requestState` (derived from the master key). */
  readonly stateKey: Buffer;
  /** How long a held upstream request waits for the caller's retry before it is cancelled. */
  readonly waitMs: number;
  /** After an upstream asks for input, how long to wait for its other requests of the same round. */
  readonly gatherMs: number;
  /** How long a `requestState` is honoured at all (a retry after the hold ended replays the call). */
  readonly stateTtlMs: number;
  /** Most exchanges held at once; past it the oldest is cancelled (its retry replays the call). */
  readonly maxHeld?: number;
}

/** One downstream request of an exchange: the first call, or a retry carrying `inputResponses`. */
export interface InputRound {
  readonly id: string | number;
  /** Who may continue the exchange: route scope, credential, method, target and arguments. */
  readonly binding: string;
  /** The caller (route scope and credential), which a session-affine upstream connection belongs to. */
  readonly caller?: string;
  /** Whose share of the per-user bound of session-affine upstream connections the caller uses. */
  readonly owner?: string;
  readonly params: Record<string, unknown>;
  readonly capabilities: Record<string, unknown>;
  readonly logLevel: LogLevel | undefined;
  /** Aborted when the caller closes this request's stream. */
  readonly signal: CallSignal;
  write(message: Record<string, unknown>): void;
  openStream(): void;
  streamIfSlow(): void;
}

/** What starts the request's work: the method runs with this signal, peer and stream. */
export type StartCall = (io: {
  signal: AbortSignal;
  downstream: DownstreamPeer;
  notify(message: Record<string, unknown>): void;
  openStream(): void;
  streamIfSlow(): void;
}) => Promise<{ response: JsonRpcAnswer | null; internalError: boolean }>;

export interface JsonRpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The answer of one round: a JSON-RPC response member (result or error) and its HTTP status. */
export interface RoundAnswer {
  readonly status: number;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

interface PendingInput {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  resolve(result: Record<string, unknown>): void;
  reject(err: DownstreamRpcError): void;
}

interface Exchange {
  readonly id: string;
  readonly binding: string;
  round: number;
  readonly controller: AbortController;
  /** Inputs the upstream asked for and nobody answered yet, by key. */
  readonly pending: Map<string, PendingInput>;
  /** Capabilities the upstream asked for that the caller had not declared. */
  readonly refused: Record<string, Record<string, never>>;
  settled?: { response: JsonRpcAnswer | null; internalError: boolean };
  current?: InputRound;
  /** What the latest round declared (upstream requests may arrive between rounds). */
  capabilities: Record<string, unknown>;
  /** Answers of the current round not used yet. */
  responses: Map<string, Record<string, unknown>>;
  wake?: () => void;
  gatherTimer?: NodeJS.Timeout;
  gathered: boolean;
  holdTimer?: NodeJS.Timeout;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The canonical JSON of a value (sorted keys), for content-derived keys and bindings. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

/** Raised for a retry the gateway refuses (-32602 with this message). */
class InvalidRetry extends Error {}

/**
 * Input-required results (SEP-2322) for 2026-07-28 callers of an upstream that asks for input the
 * stateful way (server-to-client requests). When an upstream sends `sampling/createMessage`,
 * `elicitation/create` or `roots/list` during a caller's `tools/call`, `prompts/get` or
 * `resources/read`, the gateway keeps that upstream request waiting (an exchange), answers the
 * caller an `input_required` result naming the requests
 * (every request the upstream sent in the same moment, `gatherMs`) and a signed `requestState`, and
 * hands the `inputResponses` of the caller's retry to the waiting upstream, round after round,
 * until the upstream answers.
 *
 * - `requestState` is `v1.<payload>.<HMAC-SHA256>` (key derived from the master key). It binds the
 *   exchange to the route scope, the credential, the method, its target and arguments: a tampered,
 *   expired, stale or foreign state is -32602. A caller can only continue its own exchanges.
 * - An exchange is held `waitMs` after each input-required answer (and never past the call's own
 *   timeouts); then the upstream request is cancelled. A later retry with that state (or one that
 *   reaches another instance) replays the call: the upstream's questions are answered from the
 *   retry's `inputResponses` by key, so a stateless retry completes as long as the upstream asks
 *   the same questions.
 * - An upstream request for a capability the caller did not declare is refused (-32601, as a
 *   client without it answers); when the call then fails, the caller gets -32021 naming the
 *   capabilities (HTTP 400), the protocol's error for a request that needs them.
 */
export class InputExchanges {
  private readonly exchanges = new Map<string, Exchange>();

  constructor(private readonly options: InputRequiredOptions) {}

  /** Serves one round: a first call (no `requestState`) or a retry. */
  async serve(round: InputRound, start: StartCall): Promise<RoundAnswer> {
    const responses = this.responsesOf(round.params);
    if ('error' in responses) return { status: 200, error: { code: RpcCode.InvalidParams, message: responses.error } };
    let exchange: Exchange | undefined;
    const state = round.params.requestState;
    if (state !== undefined) {
      try {
        exchange = this.resume(state, round);
      } catch (err) {
        if (!(err instanceof InvalidRetry)) throw err;
        return { status: 200, error: { code: RpcCode.InvalidParams, message: err.message } };
      }
    }
    if (!exchange) exchange = this.begin(round, responses.responses, start);
    return this.runRound(exchange, round, responses.responses);
  }

  /** Cancels every held exchange (the endpoint closes). */
  close(): void {
    for (const e of [...this.exchanges.values()]) this.drop(e);
  }

  /** Held exchanges (tests and metrics). */
  get size(): number {
    return this.exchanges.size;
  }

  private responsesOf(params: Record<string, unknown>): { responses: Map<string, Record<string, unknown>> } | { error: string } {
    if (!('inputResponses' in params)) return { responses: new Map() };
    const raw = params.inputResponses;
    if (!isObject(raw)) return { error: 'Invalid params: inputResponses must be an object' };
    const map = new Map<string, Record<string, unknown>>();
    for (const [key, value] of Object.entries(raw)) {
      if (!isObject(value)) return { error: `Invalid params: inputResponses.${key.slice(0, 64)} must be an object` };
      map.set(key, value);
    }
    const state = params.requestState;
    if (state !== undefined && typeof state !== 'string') return { error: 'Invalid params: requestState must be a string' };
    return { responses: map };
  }

  /** Starts the call of a first round (or the replay of a call whose exchange is gone). */
  private begin(round: InputRound, responses: Map<string, Record<string, unknown>>, start: StartCall): Exchange {
    const exchange: Exchange = {
      id: b64url(randomBytes(16)),
      binding: round.binding,
      round: 0,
      controller: new AbortController(),
      pending: new Map(),
      refused: {},
      current: round,
      capabilities: round.capabilities,
      responses,
      gathered: false,
    };
    const peer: DownstreamPeer = {
      has: (capability) => {
        const declared = isObject(exchange.capabilities[capability]);
        if (!declared) exchange.refused[capability] = {};
        return declared;
      },
      request: (method, params, signal) => this.ask(exchange, method, params, signal),
      log: (params) => {
        const threshold = exchange.current?.logLevel;
        if (threshold === undefined) return;
        const at = LOG_LEVELS.indexOf(params.level as LogLevel);
        if (at >= 0 && at < LOG_LEVELS.indexOf(threshold)) return;
        exchange.current?.write({ jsonrpc: '2.0', method: 'notifications/message', params });
      },
      // What the first round declared: the exchange keeps the connection it started on.
      affinity: () => {
        const capabilities = relayedCapabilities(round.capabilities);
        return capabilities
          ? { key: `caller ${round.caller ?? round.binding}`, owner: round.owner ?? round.binding, capabilities }
          : undefined;
      },
    };
    const running = start({
      signal: exchange.controller.signal,
      downstream: peer,
      notify: (m) => exchange.current?.write(m),
      openStream: () => exchange.current?.openStream(),
      streamIfSlow: () => exchange.current?.streamIfSlow(),
    });
    running.then(
      (settled) => {
        exchange.settled = settled;
        for (const p of exchange.pending.values()) p.reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'Request cancelled'));
        exchange.pending.clear();
        exchange.wake?.();
      },
      () => {
        exchange.settled = { response: null, internalError: true };
        exchange.wake?.();
      },
    );
    return exchange;
  }

  /** The exchange a retry continues, or undefined when it is gone (the call is replayed). */
  private resume(state: unknown, round: InputRound): Exchange | undefined {
    const claims = this.verify(state);
    if (claims.b !== this.bindingHash(round.binding)) throw new InvalidRetry('Invalid params: requestState belongs to another request');
    if (typeof claims.exp !== 'number' || claims.exp < Date.now()) throw new InvalidRetry('Invalid params: requestState has expired');
    const exchange = this.exchanges.get(String(claims.e));
    if (!exchange || exchange.binding !== round.binding) return undefined;
    if (exchange.current) throw new InvalidRetry('Invalid params: requestState is already being retried');
    if (exchange.round !== claims.r) throw new InvalidRetry('Invalid params: requestState is stale (a newer one was issued)');
    clearTimeout(exchange.holdTimer);
    return exchange;
  }

  /** Runs a round to its answer: the call's response, or another input-required result. */
  private async runRound(exchange: Exchange, round: InputRound, responses: Map<string, Record<string, unknown>>): Promise<RoundAnswer> {
    exchange.current = round;
    exchange.capabilities = round.capabilities;
    exchange.responses = responses;
    exchange.gathered = false;
    for (const [key, input] of [...exchange.pending]) {
      const answer = responses.get(key);
      if (!answer) continue;
      responses.delete(key);
      exchange.pending.delete(key);
      input.resolve(answer);
    }
    // Questions left unanswered are asked again, with whatever else the upstream asks meanwhile.
    if (exchange.pending.size > 0) this.armGather(exchange);
    const onClose = () => this.drop(exchange);
    round.signal.addEventListener('abort', onClose, { once: true });
    try {
      await new Promise<void>((resolve) => {
        exchange.wake = resolve;
        if (exchange.settled || round.signal.aborted) resolve();
      });
    } finally {
      round.signal.removeEventListener('abort', onClose);
      exchange.wake = undefined;
      exchange.current = undefined;
      clearTimeout(exchange.gatherTimer);
      exchange.gatherTimer = undefined;
    }
    if (exchange.settled) {
      this.forget(exchange);
      return this.final(exchange);
    }
    if (round.signal.aborted) return { status: 200, error: { code: RpcCode.RequestCancelled, message: 'Request cancelled' } };
    return this.inputRequired(exchange);
  }

  private final(exchange: Exchange): RoundAnswer {
    const { response, internalError } = exchange.settled!;
    if (!response) return { status: 500, error: { code: RpcCode.InternalError, message: 'Internal error' } };
    const failed = response.error !== undefined || (isObject(response.result) && response.result.isError === true);
    if (failed && Object.keys(exchange.refused).length > 0) {
      return {
        status: 400,
        error: {
          code: RpcCode.MissingClientCapability,
          message: `Missing required client capability: ${Object.keys(exchange.refused).join(', ')}`,
          data: { requiredCapabilities: exchange.refused },
        },
      };
    }
    const status = internalError ? 500 : response.error?.code === RpcCode.MissingClientCapability ? 400 : 200;
    return response.error ? { status, error: response.error } : { status, result: response.result };
  }

  /** Answers the round with the pending requests and holds the exchange for the retry. */
  private inputRequired(exchange: Exchange): RoundAnswer {
    exchange.round += 1;
    const inputRequests: Record<string, Record<string, unknown>> = {};
    for (const [key, input] of exchange.pending)
      inputRequests[key] = { method: input.method, ...(input.params ? { params: input.params } : {}) };
    this.exchanges.set(exchange.id, exchange);
    // Held upstream requests cost a connection slot each: the oldest gives way past the cap.
    const max = this.options.maxHeld ?? 10_000;
    for (const oldest of this.exchanges.values()) {
      if (this.exchanges.size <= max) break;
      if (oldest !== exchange && !oldest.current) this.drop(oldest);
    }
    clearTimeout(exchange.holdTimer);
    exchange.holdTimer = setTimeout(() => this.drop(exchange), this.options.waitMs);
    exchange.holdTimer.unref();
    return { status: 200, result: { resultType: 'input_required', inputRequests, requestState: this.sign(exchange) } };
  }

  /** An upstream asks the caller for input: answered from the round's responses, or held for the retry. */
  private ask(
    exchange: Exchange,
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (exchange.settled || exchange.controller.signal.aborted)
      return Promise.reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'Request cancelled'));
    const { key, shown } = this.keyOf(exchange, method, params);
    const answer = exchange.responses.get(key);
    if (answer) {
      exchange.responses.delete(key);
      return Promise.resolve(answer);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        exchange.pending.delete(key);
        reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'Request cancelled'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      exchange.pending.set(key, {
        method,
        params: shown,
        resolve: (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      if (exchange.current) this.armGather(exchange);
    });
  }

  /** Answers the round once the upstream has had `gatherMs` to send its other requests. */
  private armGather(exchange: Exchange): void {
    if (exchange.gatherTimer || exchange.gathered) return;
    exchange.gatherTimer = setTimeout(() => {
      exchange.gatherTimer = undefined;
      exchange.gathered = true;
      if (exchange.pending.size > 0) exchange.wake?.();
    }, this.options.gatherMs);
  }

  /** The key of a request (the upstream's name for it, else one derived from its content) and its params as shown. */
  private keyOf(
    exchange: Exchange,
    method: string,
    params: Record<string, unknown> | undefined,
  ): { key: string; shown: Record<string, unknown> | undefined } {
    let shown = params;
    let named: string | undefined;
    const meta = params?._meta;
    if (isObject(meta) && META_INPUT_KEY in meta) {
      const { [META_INPUT_KEY]: hint, ...rest } = meta;
      if (typeof hint === 'string' && KEY_PATTERN.test(hint)) named = hint;
      const { _meta: _dropped, ...others } = params!;
      shown = Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
    }
    const base =
      named ??
      `${CAPABILITY_OF[method] ?? 'input'}-${createHash('sha256')
        .update(`${method}\n${canonical(shown ?? {})}`)
        .digest('hex')
        .slice(0, 12)}`;
    let key = base;
    for (let n = 2; exchange.pending.has(key); n++) key = `${base}-${n}`;
    return { key, shown };
  }

  private bindingHash(binding: string): string {
    return b64url(createHash('sha256').update(binding).digest().subarray(0, 16));
  }

  private sign(exchange: Exchange): string {
    const payload = b64url(
      Buffer.from(
        JSON.stringify({
          e: exchange.id,
          r: exchange.round,
          b: this.bindingHash(exchange.binding),
          exp: Date.now() + this.options.stateTtlMs,
        }),
      ),
    );
    return `v1.${payload}.${b64url(createHmac('sha256', this.options.stateKey).update(`v1.${payload}`).digest())}`;
  }

  private verify(state: unknown): Record<string, unknown> {
    const invalid = new InvalidRetry('Invalid params: requestState failed its integrity check');
    if (typeof state !== 'string' || state.length > 1024) throw invalid;
    const parts = state.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1') throw invalid;
    const expected = createHmac('sha256', this.options.stateKey).update(`v1.${parts[1]}`).digest();
    const given = Buffer.from(parts[2]!, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || b64url(given) !== parts[2]) throw invalid;
    try {
      const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
      if (!isObject(claims)) throw invalid;
      return claims;
    } catch {
      throw invalid;
    }
  }

  private forget(exchange: Exchange): void {
    clearTimeout(exchange.holdTimer);
    if (this.exchanges.get(exchange.id) === exchange) this.exchanges.delete(exchange.id);
  }

  /** Ends an exchange: its upstream request is cancelled. */
  private drop(exchange: Exchange): void {
    this.forget(exchange);
    exchange.controller.abort();
    for (const p of exchange.pending.values()) p.reject(new DownstreamRpcError(RpcCode.RequestCancelled, 'Request cancelled'));
    exchange.pending.clear();
    exchange.wake?.();
  }
}
