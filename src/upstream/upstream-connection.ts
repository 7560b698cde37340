import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  ProgressNotificationSchema,
  ResourceUpdatedNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type Implementation,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { OutboundRefusedError, type OutboundPolicy } from '../lib/outbound-policy.js';
import type { Logger } from '../logger.js';
import { LeanStdioClientTransport } from './lean-stdio-transport.js';
import { createTransport, shutDown, stdioPid, type UpstreamTransportSpec } from './transports.js';
import { callError, describeError, isSessionGone } from './upstream-errors.js';
import { abortSignalOf, UpstreamError, type CallSignal, type UpstreamCallOptions } from '../domain/upstream-call.js';
import { DeadlineWheel } from '../lib/deadline-wheel.js';
import { traceUpstreamRequest, tracingOn, withTraceMeta } from '../telemetry/tracing.js';
import { DirectCalls, type DirectReply, type DirectRequestOptions } from './direct-calls.js';
import { DownstreamRouter, outsideCalls, RELAY_CLIENT_CAPABILITIES } from './downstream-router.js';

/** What one attempt of a call hands its request function: the time left, the caller's cancellation, the call's tag. */
interface CallRequest {
  readonly timeout: number;
  readonly maxTotalTimeout: number;
  readonly signal: CallSignal | undefined;
  /** The call's tag (`runDirect`), for the request to carry. */
  readonly tag: object | undefined;
}

/** One registered, enabled upstream server as the pool needs it. */
export interface UpstreamServerSpec {
  readonly id: string;
  readonly name: string;
  readonly connection: UpstreamTransportSpec;
  /** Default per-call timeout. */
  readonly callTimeoutMs: number;
  /** Interval of the ping health probe. */
  readonly healthCheckIntervalMs: number;
  /**
   * OAuth: every call carries a user's token (`oauth_per_user`) or the shared one (`oauth_shared`)
   * on a connection of its own (see UpstreamPool); absent: the configured headers only.
   */
  readonly auth?: 'oauth_per_user' | 'oauth_shared';
}

/** Tunables of the pool (from the process configuration). */
export interface UpstreamPoolOptions {
  readonly logger: Logger;
  readonly clientInfo: { name: string; version: string };
  /** Longest a connect + initialize may take. */
  readonly connectTimeoutMs: number;
  /** First reconnect delay; doubles per failure (with jitter) up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /**
   * Consecutive failed attempts retried on the backoff schedule; after that the server is retried
   * only once per health-check interval, so an unreachable upstream costs a bounded number of attempts.
   */
  readonly maxFastRetries: number;
  /**
   * The outbound-address policy HTTP upstream URLs must pass at every connect (resolved then, so a
   * name that comes to point at a private address is refused too). Absent: not checked.
   */
  readonly outboundPolicy?: Pick<OutboundPolicy, 'check'>;
  /** The timer the deadlines of direct requests run on (shared by the pool's connections). */
  readonly deadlines?: DeadlineWheel;
}

export type UpstreamStatus = 'connecting' | 'connected' | 'error';

/** The live state of one upstream connection. */
export interface UpstreamState {
  readonly status: UpstreamStatus;
  readonly lastError: string | null;
  readonly lastConnectedAt: Date | null;
  readonly protocolVersion: string | null;
  readonly serverInfo: Implementation | null;
  readonly capabilities: ServerCapabilities | null;
  readonly latencyMs: number | null;
  /** When the last health probe (or connection attempt) finished. */
  readonly lastCheckedAt: Date | null;
  /** Connection attempts since the last success (0 while connected). */
  readonly failures: number;
  /** Connection attempts made since the connection was created. */
  readonly attempts: number;
  /** Pid of the stdio process, while one runs. */
  readonly pid: number | null;
}

/** What a connection reports to its owner. */
export interface UpstreamEvents {
  /** The connection (re)initialised; the catalog should be synced. */
  onConnected(serverId: string): void;
  /** Status, error, latency or server facts changed. */
  onStateChange(serverId: string, state: UpstreamState): void;
  /** The upstream announced a changed list. */
  onListChanged(serverId: string, kind: 'tools' | 'resources' | 'prompts'): void;
  /** The upstream announced that a resource it was subscribed to changed. */
  onResourceUpdated?(serverId: string, uri: string): void;
}

const PROBE_TIMEOUT_MS = 10_000;

/** The revision a transport speaks when it is not the one the SDK client negotiated (a 2026-07-28 server). */
function protocolVersionInUse(transport: Transport): string | undefined {
  return (transport as { protocolVersionInUse?: string }).protocolVersionInUse;
}
/** How early a timer may fire by the wall clock (ms rounding): a timeout this close to the deadline is ours. */
const CLOCK_SLACK_MS = 5;

/**
 * One MCP client for one upstream server, shared by every caller: connects, re-initialises,
 * reconnects with backoff and jitter, probes health, and runs calls with timeouts, cancellation
 * and progress. A stdio server is exactly one child process at a time.
 */
export class UpstreamConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private generation = 0;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private waiters = new Set<() => void>();
  private probing = false;
  /**
   * Progress listeners by the progress token we put in `_meta`. The SDK's own `onprogress` drops
   * a progress notification that arrives in the same chunk as the response (it removes the
   * handler synchronously on the response, but handles notifications a microtask later), so the
   * last "100 %" was often lost. Our handler runs before the call's continuation does.
   */
  private progressListeners = new Map<string, NonNullable<UpstreamCallOptions['onProgress']>>();
  private progressSeq = 0;
  /** Relays what the upstream asks or logs during a call to that call's downstream caller. */
  private readonly router = new DownstreamRouter();
  /** Requests sent without the SDK client's bookkeeping (the hot `tools/call`). */
  private readonly directCalls: DirectCalls;
  private current: UpstreamState = {
    status: 'connecting',
    lastError: null,
    lastConnectedAt: null,
    protocolVersion: null,
    serverInfo: null,
    capabilities: null,
    latencyMs: null,
    lastCheckedAt: null,
    failures: 0,
    attempts: 0,
    pid: null,
  };

  constructor(
    public spec: UpstreamServerSpec,
    private readonly options: UpstreamPoolOptions,
    private readonly events: UpstreamEvents,
    /** What the connection declares toward the upstream (a session-affine connection: its caller's features). */
    private readonly clientCapabilities: ClientCapabilities = RELAY_CLIENT_CAPABILITIES,
  ) {
    this.directCalls = new DirectCalls(options.deadlines ?? new DeadlineWheel());
  }

  get state(): UpstreamState {
    return this.current;
  }

  /** Starts connecting in the background. */
  start(): void {
    void this.connect();
  }

  /** Drops the current connection (if any) and connects again at once. */
  reconnectNow(reason: string): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.detach(reason);
    this.current = { ...this.current, failures: 0 };
    void this.connect();
  }

  /** Ends the connection for good: the stdio process is stopped, timers cleared, waiters released. */
  async close(): Promise<void> {
    this.closed = true;
    this.generation += 1;
    clearTimeout(this.retryTimer);
    clearInterval(this.probeTimer);
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.release();
    this.directCalls.failAll();
    await shutDown(client, transport);
  }

  /**
   * Runs one request on the shared client: waits (within the deadline) while connecting, fails at
   * once when the server is in error, re-initialises once when an HTTP session is gone, and maps
   * every failure to an UpstreamError.
   */
  run<T>(
    what: string,
    options: UpstreamCallOptions,
    fn: (client: Client, request: RequestOptions, meta: { progressToken: string } | undefined) => Promise<T>,
  ): Promise<T> {
    if (tracingOn) return traceUpstreamRequest(what, this.spec.name, this.spec.connection.transport, () => this.runSdk(what, options, fn));
    return this.runSdk(what, options, fn);
  }

  private async runSdk<T>(
    what: string,
    options: UpstreamCallOptions,
    fn: (client: Client, request: RequestOptions, meta: { progressToken: string } | undefined) => Promise<T>,
  ): Promise<T> {
    const { timeoutMs, deadline, meta } = this.begin(options);
    // The SDK client takes an AbortSignal.
    const sdk = (client: Client, request: CallRequest, m: { progressToken: string } | undefined) =>
      fn(
        client,
        {
          timeout: request.timeout,
          maxTotalTimeout: request.maxTotalTimeout,
          ...(request.signal ? { signal: abortSignalOf(request.signal) } : {}),
        },
        m,
      );
    try {
      return await this.router.run(options.downstream, () => this.attempt(what, options, deadline, timeoutMs, meta, sdk));
    } finally {
      if (meta) this.progressListeners.delete(meta.progressToken);
    }
  }

  /**
   * `run` for a request sent with `direct` only: the call is attributed by the tag its request
   * carries (the transport hands it back with what the upstream sends on that request's stream)
   * rather than by an async context, so the hot path never enables AsyncLocalStorage.
   */
  runDirect<T>(
    what: string,
    options: UpstreamCallOptions,
    fn: (client: Client, request: DirectRequestOptions, meta: { progressToken: string } | undefined) => Promise<T>,
  ): Promise<T> {
    if (tracingOn)
      return traceUpstreamRequest(what, this.spec.name, this.spec.connection.transport, () => this.runTagged(what, options, fn));
    return this.runTagged(what, options, fn);
  }

  private async runTagged<T>(
    what: string,
    options: UpstreamCallOptions,
    fn: (client: Client, request: DirectRequestOptions, meta: { progressToken: string } | undefined) => Promise<T>,
  ): Promise<T> {
    const { timeoutMs, deadline, meta } = this.begin(options);
    const call = this.router.track(options.downstream);
    try {
      return await this.attempt(what, options, deadline, timeoutMs, meta, fn, call);
    } finally {
      call.release();
      if (meta) this.progressListeners.delete(meta.progressToken);
    }
  }

  /** The time bound and the progress token of a call starting now. */
  private begin(options: UpstreamCallOptions): { timeoutMs: number; deadline: number; meta: { progressToken: string } | undefined } {
    const timeoutMs = Math.min(options.timeoutMs ?? this.spec.callTimeoutMs, options.maxTimeoutMs ?? Infinity);
    let meta: { progressToken: string } | undefined;
    if (options.onProgress) {
      this.progressSeq += 1;
      meta = { progressToken: `tg-${this.progressSeq}` };
      this.progressListeners.set(meta.progressToken, options.onProgress);
    }
    return { timeoutMs, deadline: Date.now() + timeoutMs, meta };
  }

  /**
   * Sends a request on `client`'s transport directly, without the SDK's request bookkeeping (see
   * DirectCalls), for use inside `run` or `runDirect` (which map its failures). Resolves with the
   * upstream's answer, an error answer included, and the answer's text where the transport keeps it.
   */
  direct(client: Client, method: string, params: Record<string, unknown>, request: DirectRequestOptions): Promise<DirectReply> {
    const transport = this.client === client ? this.transport : undefined;
    if (!transport) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    return this.directCalls.request(transport, method, params, request.timeout ?? this.spec.callTimeoutMs, request.signal, request.tag);
  }

  /** Hands an upstream progress notification to the call that asked for it. */
  private onProgressNotification(params: { progressToken: string | number; progress: number; total?: number; message?: string }): void {
    const listener = this.progressListeners.get(String(params.progressToken));
    listener?.({
      progress: params.progress,
      ...(params.total !== undefined ? { total: params.total } : {}),
      ...(params.message !== undefined ? { message: params.message } : {}),
    });
  }

  private async attempt<T>(
    what: string,
    options: UpstreamCallOptions,
    deadline: number,
    timeoutMs: number,
    meta: { progressToken: string } | undefined,
    fn: (client: Client, request: CallRequest, meta: { progressToken: string } | undefined) => Promise<T>,
    tag?: object,
  ): Promise<T> {
    const { signal } = options;
    for (let attempt = 0; ; attempt += 1) {
      // Connected (the usual case): no wait, so no promise to await.
      const client =
        !signal?.aborted && !this.closed && this.current.status === 'connected' && this.client
          ? this.client
          : await this.readyClient(deadline, signal);
      const remaining = Math.max(1, deadline - Date.now());
      try {
        return await fn(client, { timeout: remaining, maxTotalTimeout: remaining, signal, tag }, meta);
      } catch (err) {
        if (signal?.aborted) throw new UpstreamError('cancelled', `${what} on "${this.spec.name}" was cancelled`);
        if (isSessionGone(err) && attempt === 0 && this.client === client) {
          this.options.logger.info({ server: this.spec.name }, 'upstream session gone; re-initialising');
          this.reconnectNow('upstream session expired');
          continue;
        }
        // The SDK's own errors share codes with what an upstream may answer: -32001 is our timeout
        // only once the deadline has passed, -32000 our "connection closed" only once the
        // connection is gone (the SDK reports the close before it fails the pending requests).
        const transportFailed =
          err instanceof McpError &&
          ((err.code === ErrorCode.RequestTimeout && Date.now() >= deadline - CLOCK_SLACK_MS) ||
            (err.code === ErrorCode.ConnectionClosed && (this.client !== client || this.closed)));
        const mapped = callError(err, what, this.spec.name, timeoutMs, transportFailed);
        if (this.client === client && !(err instanceof McpError) && mapped.kind === 'unavailable') {
          // The transport itself failed (HTTP upstream gone, socket reset): reconnect with backoff.
          this.lost(describeError(err));
        } else if (mapped.kind === 'timeout') {
          // A silent upstream: check at once whether the connection is still alive.
          void this.probe();
        }
        throw mapped;
      }
    }
  }

  /** The connected client, waiting while a connection attempt is under way (up to the deadline). */
  private async readyClient(deadline: number, signal: CallSignal | undefined): Promise<Client> {
    for (;;) {
      if (signal?.aborted) throw new UpstreamError('cancelled', 'The call was cancelled');
      if (this.closed) throw new UpstreamError('unavailable', `Upstream server "${this.spec.name}" is not connected (disabled or removed)`);
      if (this.current.status === 'connected' && this.client) return this.client;
      if (this.current.status === 'error')
        throw new UpstreamError(
          'unavailable',
          `Upstream server "${this.spec.name}" is unavailable: ${this.current.lastError ?? 'not connected'}; retrying in the background`,
        );
      const left = deadline - Date.now();
      if (left <= 0) throw new UpstreamError('timeout', `Upstream server "${this.spec.name}" did not connect in time`);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.waiters.add(done);
        signal?.addEventListener('abort', done);
      });
    }
  }

  private release(): void {
    for (const w of [...this.waiters]) w();
  }

  private setState(patch: Partial<UpstreamState>): void {
    this.current = { ...this.current, ...patch };
    this.events.onStateChange(this.spec.id, this.current);
    this.release();
  }

  /**
   * Connects outside any call's async context: the transport's streams (a stdio pipe, an HTTP
   * GET stream) live on after the call that happened to trigger a reconnect, and must not carry
   * that call's context (the router attributes messages by it).
   */
  private connect(): Promise<void> {
    // An unexpected throw while setting up must not leave the connection `connecting` for ever.
    return outsideCalls(() => this.connectNow()).catch((err: unknown) => this.failed(this.generation, describeError(err)));
  }

  private async connectNow(): Promise<void> {
    if (this.closed) return;
    const gen = ++this.generation;
    this.setState({ status: 'connecting', attempts: this.current.attempts + 1, pid: null });
    const target = this.spec.connection;
    if (target.transport !== 'stdio' && this.options.outboundPolicy) {
      try {
        await this.options.outboundPolicy.check(target.url);
      } catch (err) {
        const reason = err instanceof OutboundRefusedError ? `address refused by the outbound policy: ${err.message}` : describeError(err);
        this.failed(gen, reason);
        return;
      }
      if (gen !== this.generation || this.closed) return;
    }
    const client = new Client(this.options.clientInfo, { capabilities: this.clientCapabilities });
    this.router.install(client, this.clientCapabilities);
    client.setNotificationHandler(ProgressNotificationSchema, (n) => this.onProgressNotification(n.params));
    let transport: Transport;
    try {
      transport = createTransport(this.spec.connection);
    } catch (err) {
      this.failed(gen, describeError(err));
      return;
    }
    let negotiated: string | null = null;
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      negotiated = version;
      setProtocolVersion?.(version);
    };
    if (tracingOn) {
      // Every request sent upstream carries the trace context of the call that sends it.
      const send = transport.send.bind(transport);
      transport.send = (message, options) => send(withTraceMeta(message), options);
    }
    if (transport instanceof LeanStdioClientTransport) {
      // Drain stderr so a chatty server never blocks on a full pipe; keep it out of our logs above debug.
      transport.stderr?.on('data', (chunk: Buffer) => {
        if (this.options.logger.isLevelEnabled('debug'))
          this.options.logger.debug({ server: this.spec.name, stderr: chunk.toString('utf8').slice(0, 500) }, 'upstream stderr');
      });
    }
    client.onerror = (err) => {
      this.options.logger.debug({ server: this.spec.name, reason: describeError(err) }, 'upstream transport error');
      // A broken HTTP stream says little by itself; a ping tells whether the upstream is still there.
      if (this.client === client) void this.probe();
    };
    client.onclose = () => {
      if (this.client === client) this.lost('upstream closed the connection');
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.events.onListChanged(this.spec.id, 'tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.events.onListChanged(this.spec.id, 'resources'));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => this.events.onResourceUpdated?.(this.spec.id, n.params.uri));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.events.onListChanged(this.spec.id, 'prompts'));
    this.transport = transport;
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
    } catch (err) {
      await shutDown(client, transport);
      if (gen === this.generation) this.failed(gen, describeError(err));
      return;
    }
    if (gen !== this.generation || this.closed) {
      await shutDown(client, transport);
      return;
    }
    this.client = client;
    this.directCalls.attach(transport, (message, tag) => this.router.arrived(message, tag));
    this.setState({
      status: 'connected',
      lastError: null,
      lastConnectedAt: new Date(),
      protocolVersion: protocolVersionInUse(transport) ?? negotiated,
      serverInfo: client.getServerVersion() ?? null,
      capabilities: client.getServerCapabilities() ?? null,
      failures: 0,
      pid: stdioPid(transport),
    });
    this.options.logger.info(
      { server: this.spec.name, protocolVersion: protocolVersionInUse(transport) ?? negotiated },
      'upstream connected',
    );
    clearInterval(this.probeTimer);
    this.probeTimer = setInterval(() => void this.probe(), this.spec.healthCheckIntervalMs);
    this.probeTimer.unref();
    void this.probe();
    this.events.onConnected(this.spec.id);
  }

  /** Ping health probe: records the round trip; a failed probe drops the connection and reconnects. */
  private async probe(): Promise<void> {
    const client = this.client;
    if (!client || this.probing) return;
    this.probing = true;
    const started = performance.now();
    try {
      await client.ping({ timeout: Math.min(PROBE_TIMEOUT_MS, this.spec.healthCheckIntervalMs) });
      if (this.client !== client) return;
      this.setState({ latencyMs: Math.round((performance.now() - started) * 1000) / 1000, lastCheckedAt: new Date() });
    } catch (err) {
      if (this.client !== client || this.closed) return;
      const reason = isSessionGone(err) ? 'upstream session expired' : `health probe failed: ${describeError(err)}`;
      this.options.logger.warn({ server: this.spec.name, reason }, 'upstream health probe failed');
      if (isSessionGone(err)) this.reconnectNow(reason);
      else this.lost(reason);
    } finally {
      this.probing = false;
    }
  }

  /** The established connection is gone: report it and schedule a reconnect. */
  private lost(reason: string): void {
    if (this.closed) return;
    this.options.logger.warn({ server: this.spec.name, reason }, 'upstream connection lost');
    this.detach(reason);
    this.failed(this.generation, reason);
  }

  private detach(_reason: string): void {
    clearInterval(this.probeTimer);
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.directCalls.failAll();
    if (client) void shutDown(client, transport);
  }

  private failed(gen: number, reason: string): void {
    if (this.closed || gen !== this.generation) return;
    const failures = this.current.failures + 1;
    this.setState({ status: 'error', lastError: reason, failures, pid: null, latencyMs: null, lastCheckedAt: new Date() });
    const { retryBaseMs, retryMaxMs, maxFastRetries } = this.options;
    let delay: number;
    if (failures <= maxFastRetries) {
      const ceiling = Math.min(retryMaxMs, retryBaseMs * 2 ** (failures - 1));
      delay = ceiling / 2 + Math.random() * (ceiling / 2);
    } else {
      delay = this.spec.healthCheckIntervalMs * (0.8 + Math.random() * 0.4);
    }
    this.options.logger.info({ server: this.spec.name, reason, failures, retryInMs: Math.round(delay) }, 'upstream connection failed');
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }
}
