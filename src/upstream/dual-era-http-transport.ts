/**
 * The Streamable HTTP client transport of the pool, speaking either era of MCP to an upstream
 * (docs: MCP.md). The SDK `Client` on top of it knows only the legacy, stateful revisions; this
 * transport lets it drive a stateless 2026-07-28 server too:
 *
 * - Version discovery: the SDK's `initialize` first goes out as `server/discover` in the
 *   2026-07-28 form. A server that lists 2026-07-28 among its `supportedVersions` is spoken to in
 *   that revision from then on (an `UnsupportedProtocolVersion` naming it is retried once); any
 *   other answer (an HTTP error, -32601, a result without versions) means a legacy server, which
 *   then gets the SDK's `initialize` as before. A 401 or 403 is the upstream's authorization
 *   challenge and fails the connect as it always did.
 * - Every 2026-07-28 request carries the per-request `_meta` (protocol version, the connection's
 *   client capabilities and info) and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 *   headers (SEP-2575, SEP-2243); a `tools/call` mirrors its tool's `x-mcp-header` arguments into
 *   `Mcp-Param-*` headers, and tools whose annotations are invalid are left out of `tools/list`.
 * - Multi-round-trip requests (SEP-2322): an `input_required` result is not handed on; its input
 *   requests go to the SDK client as if the server had sent them on the request's stream (so the
 *   relay to the downstream caller, with its capability checks, runs unchanged), and the request is
 *   sent again under a new id with the `inputResponses` and the `requestState` exactly as received.
 * - What the era lacks is not sent: `notifications/initialized` and cancellations (a stateless
 *   request is cancelled by closing its stream); the health probe's `ping` becomes `server/discover`.
 *   Session ids are ignored. An error status with a JSON-RPC error body is that request's answer.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { TaggedSendOptions } from './direct-calls.js';
import { LeanHttpClientTransport } from './lean-http-transport.js';
import { encodeHeaderValue, paramHeadersOf, paramHeaderValues, type ParamHeaders } from './mcp-param-headers.js';
import { UpstreamHttpError } from './upstream-errors.js';

/** The stateless revision. */
export const MODERN_VERSION = '2026-07-28';
/** What the SDK client is told was negotiated with a 2026-07-28 server (it accepts no later version). */
const SDK_FACING_VERSION = '2025-11-25';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
/** Longest the version discovery waits for its answer before the server is taken for a legacy one. */
const DISCOVERY_TIMEOUT_MS = 5000;
/** Input-required rounds one request may take before it fails (a server that asks for ever). */
const MAX_ROUNDS = 10;
/** Requests whose answer may be an input-required result. */
const MULTI_ROUND = new Set(['tools/call', 'prompts/get', 'resources/read']);

type Id = string | number;
type Message = Record<string, unknown>;

/** One multi-round-trip request, from its first send to its complete answer. */
interface Exchange {
  readonly id: Id;
  readonly method: string;
  readonly params: Message;
  readonly tag: object | undefined;
  rounds: number;
  waiting: Set<string>;
  responses: Message;
  requestState: unknown;
  failure: unknown;
}

export class DualEraHttpClientTransport extends LeanHttpClientTransport {
  private modern = false;
  private meta: Message = {};
  /** The `server/discover` of the version discovery, until it is answered. */
  private discovering: { id: Id; settle: (answer: Message | undefined) => void } | undefined;
  /** `x-mcp-header` annotations of the tools the server listed, by tool name. */
  private readonly toolHeaders = new Map<string, ParamHeaders>();
  private readonly listRequests = new Set<Id>();
  private readonly pings = new Set<Id>();
  /** Multi-round-trip requests by the id of their latest send. */
  private readonly exchanges = new Map<Id, Exchange>();
  /** Input requests handed to the client, by the id they were given. */
  private readonly inputs = new Map<string, { exchange: Exchange; key: string }>();
  private inputSeq = 0;
  private discoverySeq = 0;

  /** 2026-07-28 once the server was found to speak it (the SDK client is told 2025-11-25). */
  get protocolVersionInUse(): string | undefined {
    return this.modern ? MODERN_VERSION : undefined;
  }

  override setProtocolVersion(version: string): void {
    super.setProtocolVersion(this.modern ? MODERN_VERSION : version);
  }

  /** @internal Session ids mean nothing to a stateless server (nor to the discovery of one). */
  override answered(sessionId: string | string[] | undefined): void {
    super.answered(this.modern || this.discovering ? undefined : sessionId);
  }

  // Not async: a legacy upstream's requests (the hot tools/call) pay no promise of their own here.
  override send(message: JSONRPCMessage | JSONRPCMessage[], options?: TaggedSendOptions): Promise<void> {
    if (!Array.isArray(message) && 'method' in message && 'id' in message && message.method === 'initialize')
      return this.initialize(message as Message, options);
    if (!this.modern || Array.isArray(message)) return super.send(message, options);
    return this.sendInModernEra(message as Message, options);
  }

  private async sendInModernEra(m: Message, options: TaggedSendOptions | undefined): Promise<void> {
    if (m.method === undefined) {
      // A response: the client's answer to an input request; a stateless server takes no other.
      const input = typeof m.id === 'string' ? this.inputs.get(m.id) : undefined;
      if (input) await this.answerInput(m.id as string, input.exchange, input.key, m);
      return;
    }
    if (m.id === undefined) return;
    const id = m.id as Id;
    const method = m.method as string;
    const params = isObject(m.params) ? m.params : {};
    if (method === 'ping') {
      this.pings.add(id);
      return this.sendModern(id, 'server/discover', {}, options?.tag);
    }
    if (method === 'tools/list') this.listRequests.add(id);
    if (MULTI_ROUND.has(method))
      this.exchanges.set(id, {
        id,
        method,
        params,
        tag: options?.tag,
        rounds: 0,
        waiting: new Set(),
        responses: {},
        requestState: undefined,
        failure: undefined,
      });
    try {
      await this.sendModern(id, method, params, options?.tag);
    } catch (err) {
      // No answer will come: nothing of the request is kept.
      this.listRequests.delete(id);
      this.exchanges.delete(id);
      throw err;
    }
  }

  /** A request in the 2026-07-28 form: `_meta` and the standard (and custom) headers. */
  private sendModern(id: Id, method: string, params: Message, tag: object | undefined): Promise<void> {
    const meta = isObject(params._meta) ? { ...params._meta, ...this.meta } : this.meta;
    const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
    const name = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name : undefined;
    if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
    if (method === 'tools/call' && typeof name === 'string') {
      const annotated = this.toolHeaders.get(name);
      if (annotated) Object.assign(headers, paramHeaderValues(annotated, params.arguments));
    }
    const message = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } } as JSONRPCMessage;
    return super.send(message, { ...(tag ? { tag } : {}), headers } as TaggedSendOptions);
  }

  /** Version discovery (see the file's comment), then the SDK client's `initialize` answered or sent. */
  private async initialize(message: Message, options: TaggedSendOptions | undefined): Promise<void> {
    const params = isObject(message.params) ? message.params : {};
    this.meta = {
      [META_VERSION]: MODERN_VERSION,
      [META_CAPABILITIES]: isObject(params.capabilities) ? params.capabilities : {},
      ...(isObject(params.clientInfo) ? { [META_CLIENT_INFO]: params.clientInfo } : {}),
    };
    const id = message.id as Id;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await this.discover();
      const error = answer?.error;
      if (isObject(error)) {
        const supported = isObject(error.data) ? error.data.supported : undefined;
        if (attempt === 0 && error.code === -32022 && Array.isArray(supported) && supported.includes(MODERN_VERSION)) continue;
        break;
      }
      const result = answer?.result;
      if (!isObject(result) || !Array.isArray(result.supportedVersions) || !result.supportedVersions.includes(MODERN_VERSION)) break;
      this.modern = true;
      super.setProtocolVersion(MODERN_VERSION);
      const resultMeta = isObject(result._meta) ? result._meta : {};
      const serverInfo = isObject(result.serverInfo)
        ? result.serverInfo
        : isObject(resultMeta['io.modelcontextprotocol/serverInfo'])
          ? resultMeta['io.modelcontextprotocol/serverInfo']
          : { name: 'unknown', version: '0' };
      const initialized = {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: SDK_FACING_VERSION,
          capabilities: isObject(result.capabilities) ? result.capabilities : {},
          serverInfo,
          ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
        },
      };
      this.onmessage?.(initialized as JSONRPCMessage);
      return;
    }
    return super.send(message as JSONRPCMessage, options);
  }

  /**
   * One `server/discover`: its answer, or undefined when the POST failed or no answer came within
   * DISCOVERY_TIMEOUT_MS (a legacy server that leaves an unknown method unanswered); an
   * authorization challenge fails it. Its id is its own, so a late answer never passes for the
   * answer to `initialize`.
   */
  private discover(): Promise<Message | undefined> {
    this.discoverySeq += 1;
    const id = `tg-discover-${this.discoverySeq}`;
    return new Promise<Message | undefined>((resolve, reject) => {
      const timer = setTimeout(() => settle(undefined), DISCOVERY_TIMEOUT_MS);
      timer.unref();
      const settle = (answer: Message | undefined, err?: unknown) => {
        if (this.discovering?.id !== id) return;
        this.discovering = undefined;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(answer);
      };
      this.discovering = { id, settle };
      this.sendModern(id, 'server/discover', {}, undefined).then(
        () => {
          // A JSON answer was delivered by now; an SSE one settles when its message arrives.
        },
        (err: unknown) => settle(undefined, err instanceof UpstreamHttpError && (err.code === 401 || err.code === 403) ? err : undefined),
      );
    });
  }

  /** In 2026-07-28 (and while discovering), an error status whose body is a JSON-RPC error is the request's answer. */
  protected override post(
    message: JSONRPCMessage | JSONRPCMessage[],
    tag: object | undefined,
    extra?: Record<string, string>,
  ): Promise<void> {
    if (!this.modern && !this.discovering) return super.post(message, tag, extra);
    return super.post(message, tag, extra).catch((err: unknown) => {
      const id = !Array.isArray(message) && 'id' in message ? (message.id as Id) : undefined;
      const reply = id === undefined ? undefined : errorAnswerOf(err, id);
      if (!reply) throw err;
      this.deliver(reply, JSON.stringify(reply), tag);
    });
  }

  protected override deliver(data: unknown, text?: string, tag?: object): void {
    if ((!this.modern && !this.discovering) || !isObject(data) || data.method !== undefined) return super.deliver(data, text, tag);
    const id = data.id as Id;
    if (this.discovering && id === this.discovering.id) {
      this.discovering.settle(data);
      return;
    }
    if (this.pings.delete(id)) {
      const pong = 'error' in data ? data : { jsonrpc: '2.0', id, result: {} };
      super.deliver(pong, JSON.stringify(pong), tag);
      return;
    }
    let answer: Message = data;
    if (this.listRequests.delete(id) && isObject(data.result) && Array.isArray(data.result.tools)) answer = this.screenTools(data);
    const exchange = this.exchanges.get(id);
    if (exchange) {
      this.exchanges.delete(id);
      const result = answer.result;
      if (isObject(result) && result.resultType === 'input_required') {
        this.askInputs(exchange, result);
        return;
      }
      if (id !== exchange.id) answer = { ...answer, id: exchange.id };
    }
    super.deliver(answer, answer === data ? text : JSON.stringify(answer), tag);
  }

  /** Notes each listed tool's `x-mcp-header` annotations and leaves out the tools whose annotations are invalid. */
  private screenTools(data: Message): Message {
    const result = data.result as Message;
    const kept = (result.tools as unknown[]).filter((tool) => {
      if (!isObject(tool) || typeof tool.name !== 'string') return true;
      const headers = paramHeadersOf(tool.inputSchema);
      if (headers === undefined) {
        this.toolHeaders.delete(tool.name);
        return false;
      }
      if (headers.length > 0) this.toolHeaders.set(tool.name, headers);
      else this.toolHeaders.delete(tool.name);
      return true;
    });
    return kept.length === (result.tools as unknown[]).length ? data : { ...data, result: { ...result, tools: kept } };
  }

  /** Hands an input-required result's requests to the client, as requests of the server on the exchange's stream. */
  private askInputs(exchange: Exchange, result: Message): void {
    exchange.rounds += 1;
    const requests = isObject(result.inputRequests) ? Object.entries(result.inputRequests) : [];
    if (exchange.rounds > MAX_ROUNDS || requests.length === 0) {
      const reason = requests.length === 0 ? 'asked for input without any input request' : `asked for input more than ${MAX_ROUNDS} times`;
      this.fail(exchange, { code: -32603, message: `The upstream server ${reason}` });
      return;
    }
    exchange.waiting = new Set();
    exchange.responses = {};
    exchange.failure = undefined;
    exchange.requestState = result.requestState;
    const asks: Message[] = [];
    for (const [key, request] of requests) {
      if (!isObject(request) || typeof request.method !== 'string') {
        this.fail(exchange, { code: -32603, message: 'The upstream server sent an input request without a method' });
        return;
      }
      this.inputSeq += 1;
      const id = `tg-input-${this.inputSeq}`;
      this.inputs.set(id, { exchange, key });
      exchange.waiting.add(id);
      asks.push({ jsonrpc: '2.0', id, method: request.method, ...(isObject(request.params) ? { params: request.params } : {}) });
    }
    for (const ask of asks) super.deliver(ask, JSON.stringify(ask), exchange.tag);
  }

  /** The client answered one input request; once all are answered the request goes again with the answers. */
  private async answerInput(id: string, exchange: Exchange, key: string, answer: Message): Promise<void> {
    this.inputs.delete(id);
    exchange.waiting.delete(id);
    if ('error' in answer) exchange.failure ??= answer.error;
    else exchange.responses[key] = answer.result;
    if (exchange.waiting.size > 0) return;
    if (exchange.failure !== undefined) {
      this.fail(exchange, exchange.failure);
      return;
    }
    const retryId = `${String(exchange.id)}~${exchange.rounds}`;
    this.exchanges.set(retryId, exchange);
    const params: Message = {
      ...exchange.params,
      inputResponses: exchange.responses,
      ...(exchange.requestState !== undefined ? { requestState: exchange.requestState } : {}),
    };
    try {
      await this.sendModern(retryId, exchange.method, params, exchange.tag);
    } catch (err) {
      this.exchanges.delete(retryId);
      this.fail(exchange, { code: -32603, message: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Ends an exchange with an error answer to its original request. */
  private fail(exchange: Exchange, error: unknown): void {
    const reply = { jsonrpc: '2.0', id: exchange.id, error };
    super.deliver(reply, JSON.stringify(reply), exchange.tag);
  }
}

/** The JSON-RPC error an error status carried as its body, as the answer to request `id`. */
function errorAnswerOf(err: unknown, id: Id): Message | undefined {
  if (!(err instanceof UpstreamHttpError) || err.code === 401 || err.code === 403 || !err.body) return undefined;
  try {
    const body = JSON.parse(err.body) as unknown;
    if (!isObject(body) || !isObject(body.error) || typeof body.error.code !== 'number') return undefined;
    return { jsonrpc: '2.0', id, error: body.error };
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
