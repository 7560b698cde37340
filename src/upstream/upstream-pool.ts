import {
  CancelTaskResultSchema,
  CompleteResultSchema,
  CreateTaskResultSchema,
  EmptyResultSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DeadlineWheel } from '../lib/deadline-wheel.js';
import { memberSpan } from '../lib/json-members.js';
import type { DirectReply, DirectRequestOptions } from './direct-calls.js';
import { randomUUID } from 'node:crypto';
import {
  UPSTREAM_AUTHORIZATION_REQUIRED,
  URL_ELICITATION_REQUIRED,
  UpstreamError,
  type CompletionRef,
  type ToolCallResult,
  type UpstreamCallOptions,
  type UpstreamCaller,
  type UpstreamCredential,
  type UpstreamCredentials,
} from '../domain/upstream-call.js';
import { withResultText } from '../domain/result-text.js';
import { InvalidAnswerError, UpstreamAnswerError } from './upstream-errors.js';
import { CapabilityProbe, listRawTools, readPages } from './capability-probe.js';
import type { ClientFeature } from '../domain/client-features.js';
import { AffineConnections, type AffineLease, type AffinityOptions, type AffinityStats } from './affine-connections.js';
import {
  UpstreamConnection,
  type UpstreamEvents,
  type UpstreamPoolOptions,
  type UpstreamServerSpec,
  type UpstreamState,
} from './upstream-connection.js';

/** `_meta` key with which a 2025-11-25 `tasks/result` names its task. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * A tool call run as a task on an upstream that offers task-augmented `tools/call` (MCP
 * 2025-11-25): the upstream creates the task, `tasks/result` waits for its outcome, and a cancel of
 * the call (the signal) becomes `tasks/cancel` upstream. Resolves with the tool's result.
 */
async function callAsUpstreamTask(
  client: Parameters<Parameters<UpstreamConnection['run']>[2]>[0],
  toolName: string,
  args: Record<string, unknown>,
  ttlMs: number,
  request: Parameters<Parameters<UpstreamConnection['run']>[2]>[1],
  meta: { progressToken: string } | undefined,
  started: (() => void) | undefined,
): Promise<ToolCallResult> {
  const created = await client.request(
    { method: 'tools/call', params: { name: toolName, arguments: args, task: { ttl: ttlMs }, ...(meta ? { _meta: meta } : {}) } },
    CreateTaskResultSchema,
    request,
  );
  const { taskId } = created.task;
  started?.();
  const cancel = () => {
    client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, { timeout: 10_000 }).catch(() => undefined);
  };
  request.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const result = (await client.request({ method: 'tasks/result', params: { taskId } }, RAW_CALL_RESULT, request)) as ToolCallResult;
    // The upstream names its own task in `_meta`: an id the gateway's callers never see.
    const meta = result._meta as Record<string, unknown> | undefined;
    if (!meta || !(RELATED_TASK in meta)) return result;
    const { [RELATED_TASK]: _upstreamTask, ...rest } = meta;
    const { _meta: _dropped, ...plain } = result;
    return Object.keys(rest).length > 0 ? { ...plain, _meta: rest } : (plain as ToolCallResult);
  } finally {
    request.signal?.removeEventListener('abort', cancel);
  }
}

/**
 * A tools/call result as the gateway forwards it: content blocks with a type, everything else passed
 * through as the upstream sent it. The SDK's CallToolResultSchema re-validated every content block
 * against the full union of block kinds on every call (a measurable share of the hop's CPU); the
 * MCP layer checks the shape it relies on before answering.
 */
const RAW_CALL_RESULT = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isContentBlock = (b: unknown): boolean => isObject(b) && typeof b.type === 'string';

/**
 * The result of a direct `tools/call` (the same checks as RAW_CALL_RESULT, without zod): content
 * blocks with a type (missing content reads as none), structured content an object, `isError` a
 * boolean; everything else passed through. An unchanged result keeps the text it arrived as, so
 * the endpoint can pass it on without serialising it again. An error answer becomes the McpError
 * the SDK would have raised.
 */
export function callResult(reply: DirectReply): ToolCallResult {
  const { message, text } = reply;
  if (message.error !== undefined) {
    const e = isObject(message.error) ? message.error : {};
    const code = Number.isInteger(e.code) ? (e.code as number) : ErrorCode.InternalError;
    throw new UpstreamAnswerError(code, typeof e.message === 'string' ? e.message : 'Unknown error', e.data);
  }
  const result = message.result;
  if (
    !isObject(result) ||
    (result.content !== undefined && !(Array.isArray(result.content) && result.content.every(isContentBlock))) ||
    (result.structuredContent !== undefined && !isObject(result.structuredContent)) ||
    (result.isError !== undefined && typeof result.isError !== 'boolean')
  )
    throw new InvalidAnswerError('malformed tools/call result');
  if (result.content === undefined) return { ...result, content: [] };
  const span = text === undefined ? undefined : memberSpan(text, 'result');
  return span ? withResultText(result as ToolCallResult, text!.slice(span[0], span[1])) : (result as ToolCallResult);
}

/** The shape the catalog needs of a tool; anything else of an upstream's listing is left out. */
function isTool(t: unknown): t is Tool {
  return isObject(t) && typeof t.name === 'string' && isObject(t.inputSchema) && (t.outputSchema === undefined || isObject(t.outputSchema));
}

/** What one upstream offers, read from all pages of its lists. */
export interface UpstreamListing {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

const IGNORE_EVENTS: UpstreamEvents = { onConnected: () => undefined, onStateChange: () => undefined, onListChanged: () => undefined };

/** Bounds of the per-user connections of OAuth upstreams when the process keeps no session-affine ones. */
const OAUTH_AFFINITY: AffinityOptions = { maxPerServer: 64, maxPerUser: 2, idleMs: 5 * 60_000 };

/**
 * The caller's way to fix a missing upstream authorization: to a client that declared URL-mode
 * elicitation, the 2025-11-25 `URLElicitationRequiredError` with the Connect link; to others an
 * error whose message and `data` carry it.
 */
function authorizationRequired(
  serverName: string,
  needed: Extract<UpstreamCredential, { kind: 'needs_authorization' }>,
  options: UpstreamCallOptions,
): UpstreamError {
  const why = needed.reason === 'needs_consent' ? 'Your authorization of' : 'You have not connected';
  const message = `${why} upstream server ${serverName}${needed.reason === 'needs_consent' ? ' has expired' : ''}: connect it at ${needed.connectUrl}`;
  const elicitation = options.downstream?.affinity?.()?.capabilities.elicitation as { url?: unknown } | undefined;
  if (elicitation && typeof elicitation.url === 'object' && elicitation.url !== null)
    return new UpstreamError('rejected', message, {
      code: URL_ELICITATION_REQUIRED,
      message,
      data: { elicitations: [{ mode: 'url', elicitationId: randomUUID(), url: needed.connectUrl, message }] },
    });
  return new UpstreamError('rejected', message, {
    code: UPSTREAM_AUTHORIZATION_REQUIRED,
    message,
    data: { reason: 'upstream_authorization_required', server: serverName, authorization_url: needed.connectUrl },
  });
}

/** The auth-params of a `WWW-Authenticate: Bearer …` challenge (lower-case names). */
function bearerParams(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of header.matchAll(/([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g))
    out[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
  return out;
}

/** Resources, prompts and completions of a per-user OAuth server are not served yet: only its tools carry each user's token. */
const PER_USER_ONLY_TOOLS = new UpstreamError('unavailable', 'This server authorizes each user: only its tools are served');

/**
 * The shared pool of upstream MCP clients: one connection (one stdio process) per registered,
 * enabled server, used by every bundle and the gateway endpoint. Implements the catalog seam's
 * UpstreamCaller. A slow or dead upstream only ever affects calls to itself.
 */
export class UpstreamPool implements UpstreamCaller {
  private readonly connections = new Map<string, UpstreamConnection>();
  private closed = false;
  private events: UpstreamEvents;
  /** What every connection reports to: forwards to the current listener. */
  private readonly relay: UpstreamEvents = {
    onConnected: (serverId) => {
      this.events.onConnected(serverId);
      for (const listener of this.connectListeners) listener(serverId);
    },
    onStateChange: (serverId, state) => this.events.onStateChange(serverId, state),
    onListChanged: (serverId, kind) => this.events.onListChanged(serverId, kind),
    onResourceUpdated: (serverId, uri) => {
      for (const listener of this.updateListeners) listener(serverId, uri);
    },
  };
  /** Listeners of upstream `notifications/resources/updated` (the MCP endpoints' subscriptions). */
  private readonly updateListeners = new Set<(serverId: string, uri: string) => void>();
  /** Listeners of (re)connections besides the catalog sync (subscriptions to restore). */
  private readonly connectListeners = new Set<(serverId: string) => void>();

  private readonly options: UpstreamPoolOptions;
  /** The deadlines of every connection's direct requests, on one timer. */
  private readonly deadlines = new DeadlineWheel();

  /** Session-affine connections of callers that declared client features (absent: every call shares). */
  private readonly affine: AffineConnections | undefined;
  /** What each server's tools need a client to declare (found at catalog sync). */
  private readonly probe: CapabilityProbe;

  /**
   * The connections of OAuth upstreams, one per caller and token (the session-affine connections
   * when the process keeps them, so one bound covers both): a call never runs on a connection that
   * carries another user's token.
   */
  private readonly oauthConnections: AffineConnections;
  /** Where calls to OAuth upstreams get their tokens (the vault); absent: such calls fail. */
  private credentials: UpstreamCredentials | undefined;

  constructor(options: UpstreamPoolOptions & { affinity?: AffinityOptions }, events: UpstreamEvents = IGNORE_EVENTS) {
    const { affinity, ...rest } = options;
    this.options = { ...rest, deadlines: this.deadlines };
    this.events = events;
    this.affine = affinity ? new AffineConnections(affinity, this.options) : undefined;
    this.probe = new CapabilityProbe(this.options);
    this.oauthConnections = this.affine ?? new AffineConnections(OAUTH_AFFINITY, this.options);
  }

  /** Names where calls to OAuth upstreams get their tokens (the vault is built after the pool). */
  useCredentials(credentials: UpstreamCredentials): void {
    this.credentials = credentials;
  }

  /**
   * A tool call to an OAuth upstream: the acting user's token (the shared one on an `oauth_shared`
   * server), refreshed by the vault when due, on a connection of that user and token; without a
   * usable token, the caller's way to connect.
   */
  private async callWithOAuth(
    shared: UpstreamConnection,
    toolName: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<ToolCallResult> {
    const spec = shared.spec;
    const userId = spec.auth === 'oauth_shared' ? null : (options.actingUser ?? undefined);
    if (!this.credentials) throw new UpstreamError('unavailable', 'Upstream OAuth credentials are not available');
    if (userId === undefined)
      throw authorizationRequired(spec.name, { kind: 'needs_authorization', connectUrl: '', reason: 'not_connected' }, options);
    const credential = await this.credentials.credential(spec.id, userId);
    if (credential.kind === 'needs_authorization') throw authorizationRequired(spec.name, credential, options);
    if (spec.connection.transport === 'stdio') throw new UpstreamError('unavailable', 'OAuth is for HTTP upstreams only');
    const withToken: UpstreamServerSpec = {
      ...spec,
      connection: { ...spec.connection, headers: { ...spec.connection.headers, Authorization: `Bearer ${credential.accessToken}` } },
    };
    const capabilities = options.downstream?.affinity?.()?.capabilities ?? {};
    const lease = this.oauthConnections.lease(withToken, {
      key: `oauth\n${userId ?? ''}\n${credential.fingerprint}`,
      owner: userId ?? '(shared)',
      capabilities,
    });
    if (!lease) throw new UpstreamError('unavailable', `Too many connections to upstream server ${spec.name}; try again shortly`);
    try {
      return await this.callToolOn(lease.connection, toolName, args, options);
    } catch (err) {
      // The upstream refused the token (401) or wants more scope (403 insufficient_scope): the
      // caller connects again (with the union of scopes); a refusal that asking cannot fix passes on.
      const refusal = err instanceof UpstreamError ? err.refusal : undefined;
      if (!refusal || !this.credentials.refused) throw err;
      const challenge = bearerParams(refusal.challenge);
      if (refusal.status === 403 && challenge.error !== 'insufficient_scope') throw err;
      const needed = await this.credentials.refused(spec.id, userId, refusal.status, (challenge.scope ?? '').split(/\s+/).filter(Boolean));
      throw needed ? authorizationRequired(spec.name, needed, options) : err;
    } finally {
      lease.release();
    }
  }

  /** Session-affine connections per server (busy, idle), for /metrics. */
  affinityStats(): AffinityStats[] {
    return this.affine?.stats() ?? [];
  }

  /**
   * The connection of its own a call gets, when it needs one: the upstream's transport cannot
   * attribute server-to-client messages to a call (stdio, HTTP+SSE; a Streamable HTTP upstream
   * answers on the stream of the request that caused them, so its shared connection attributes
   * exactly), and the caller declared sampling, elicitation or roots. Undefined: the shared one.
   */
  private leaseFor(shared: UpstreamConnection, options: UpstreamCallOptions): AffineLease | undefined {
    const peer = options.downstream;
    if (this.affine === undefined || peer?.affinity === undefined || shared.spec.connection.transport === 'streamable_http')
      return undefined;
    const affinity = peer.affinity();
    return affinity ? this.affine.lease(shared.spec, affinity) : undefined;
  }

  /** Runs `fn` on the call's session-affine connection when it gets one, else on the shared one. */
  private on<T>(serverId: string, options: UpstreamCallOptions, fn: (connection: UpstreamConnection) => Promise<T>): Promise<T> {
    let shared: UpstreamConnection;
    try {
      shared = this.connection(serverId);
    } catch (err) {
      return Promise.reject(err);
    }
    // The shared connection of a per-user OAuth server carries some user's token (for listing and
    // probing): never used on another caller's behalf.
    if (shared.spec.auth === 'oauth_per_user') return Promise.reject(PER_USER_ONLY_TOOLS);
    const lease = this.leaseFor(shared, options);
    if (lease === undefined) return fn(shared);
    return fn(lease.connection).finally(() => lease.release());
  }

  /** Makes `events` the one listener of every connection's reports (the catalog sync). */
  listen(events: UpstreamEvents): void {
    this.events = events;
  }

  /** Adds a server, or replaces its connection when the spec changed; connects in the background. */
  async upsert(spec: UpstreamServerSpec): Promise<void> {
    if (this.closed) return;
    const existing = this.connections.get(spec.id);
    if (existing) {
      const same = (a: UpstreamServerSpec) => JSON.stringify([a.connection, a.healthCheckIntervalMs]);
      if (same(existing.spec) === same(spec)) {
        // Only the name or the call timeout changed: no reason to reconnect.
        existing.spec = spec;
        return;
      }
      this.connections.delete(spec.id);
      this.probe.forget(spec.id);
      await Promise.all([existing.close(), this.affine?.closeServer(spec.id), this.oauthConnections.closeServer(spec.id)]);
    }
    const connection = new UpstreamConnection(spec, this.options, this.relay);
    this.connections.set(spec.id, connection);
    connection.start();
    if (spec.connection.transport !== 'streamable_http') this.affine?.warm(spec);
  }

  /** Disconnects and forgets a server (its stdio process ends). */
  async remove(serverId: string): Promise<void> {
    const connection = this.connections.get(serverId);
    if (!connection) return;
    this.connections.delete(serverId);
    this.probe.forget(serverId);
    await Promise.all([connection.close(), this.affine?.closeServer(serverId), this.oauthConnections.closeServer(serverId)]);
  }

  /** Drops the server's connection and connects again at once. */
  reconnect(serverId: string, reason = 'reconnect requested'): void {
    this.connections.get(serverId)?.reconnectNow(reason);
  }

  /** Live state of a server's connection; undefined when it is not in the pool (disabled, removed). */
  state(serverId: string): UpstreamState | undefined {
    return this.connections.get(serverId)?.state;
  }

  /** Whether the server's calls carry OAuth tokens (its shared connection lists and probes only). */
  isOAuth(serverId: string): boolean {
    return this.connections.get(serverId)?.spec.auth !== undefined;
  }

  has(serverId: string): boolean {
    return this.connections.has(serverId);
  }

  /** Ids of the servers in the pool. */
  serverIds(): string[] {
    return [...this.connections.keys()];
  }

  /** Closes every connection and ends every stdio process. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all([...all.map((c) => c.close()), this.affine?.close(), this.probe.close(), this.oauthConnections.close()]);
    this.deadlines.close();
  }

  private connection(serverId: string): UpstreamConnection {
    const c = this.connections.get(serverId);
    if (!c) throw new UpstreamError('unavailable', 'The upstream server is not registered or is disabled');
    return c;
  }

  /** The shared connection for a caller's request other than a tool call: refused on a per-user OAuth server. */
  private callerConnection(serverId: string): UpstreamConnection {
    const c = this.connection(serverId);
    if (c.spec.auth === 'oauth_per_user') throw PER_USER_ONLY_TOOLS;
    return c;
  }

  callTool(serverId: string, toolName: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<ToolCallResult> {
    // Not an async function: the hot path returns the connection's promise itself (an async
    // function resolving with a promise costs two more microtask turns per call).
    let connection: UpstreamConnection;
    try {
      connection = this.connection(serverId);
    } catch (err) {
      return Promise.reject(err);
    }
    if (connection.spec.auth !== undefined) return this.callWithOAuth(connection, toolName, args, options);
    // Sent directly rather than through client.callTool / client.request: a gateway passes results
    // through untouched (no client-side outputSchema enforcement, no re-parsing), with the text
    // they arrived as where the transport keeps it.
    const lease = this.leaseFor(connection, options);
    if (lease !== undefined) return this.callToolOn(lease.connection, toolName, args, options).finally(() => lease.release());
    return this.callToolOn(connection, toolName, args, options);
  }

  private callToolOn(
    connection: UpstreamConnection,
    toolName: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<ToolCallResult> {
    const direct = async (client: Client, request: DirectRequestOptions, meta: { progressToken: string } | undefined) =>
      callResult(
        await connection.direct(client, 'tools/call', { name: toolName, arguments: args, ...(meta ? { _meta: meta } : {}) }, request),
      );
    // The hot path: attributed by its request's tag, not by an async context.
    if (!options.asTask) return connection.runDirect(`tools/call ${toolName}`, options, direct);
    const asTask = options.asTask;
    return connection.run(`tools/call ${toolName}`, options, async (client, request, meta) => {
      const taskCalls = (client.getServerCapabilities()?.tasks as { requests?: { tools?: { call?: unknown } } } | undefined)?.requests
        ?.tools?.call;
      if (taskCalls) return callAsUpstreamTask(client, toolName, args, asTask.ttlMs, request, meta, asTask.started);
      asTask.started?.();
      return direct(client, request, meta);
    });
  }

  async readResource(
    serverId: string,
    uri: string,
    options: UpstreamCallOptions = {},
  ): Promise<{ contents: unknown[]; [key: string]: unknown }> {
    return this.on(serverId, options, (c) => c.run('resources/read', options, (client, request) => client.readResource({ uri }, request)));
  }

  async getPrompt(
    serverId: string,
    name: string,
    args: Record<string, string>,
    options: UpstreamCallOptions = {},
  ): Promise<{ messages: unknown[]; description?: string; [key: string]: unknown }> {
    return this.on(serverId, options, (c) =>
      c.run(`prompts/get ${name}`, options, (client, request) => client.getPrompt({ name, arguments: args }, request)),
    );
  }

  async complete(
    serverId: string,
    params: { ref: CompletionRef; argument: { name: string; value: string }; context?: Record<string, unknown> },
    options: UpstreamCallOptions = {},
  ): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean }; [key: string]: unknown }> {
    return this.callerConnection(serverId).run('completion/complete', options, async (client, request) => {
      const result = await client.request({ method: 'completion/complete', params }, CompleteResultSchema, request);
      return result as { completion: { values: string[]; total?: number; hasMore?: boolean } };
    });
  }

  async subscribeResource(serverId: string, uri: string, options: UpstreamCallOptions = {}): Promise<void> {
    await this.callerConnection(serverId).run('resources/subscribe', options, (client, request) =>
      client.request({ method: 'resources/subscribe', params: { uri } }, EmptyResultSchema, request),
    );
  }

  async unsubscribeResource(serverId: string, uri: string, options: UpstreamCallOptions = {}): Promise<void> {
    await this.callerConnection(serverId).run('resources/unsubscribe', options, (client, request) =>
      client.request({ method: 'resources/unsubscribe', params: { uri } }, EmptyResultSchema, request),
    );
  }

  /** Calls `listener` for every `notifications/resources/updated` of any upstream; returns the unsubscribe. */
  onResourceUpdated(listener: (serverId: string, uri: string) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  /** Calls `listener` whenever a connection (re)initialises; returns the unsubscribe. */
  onUpstreamConnected(listener: (serverId: string) => void): () => void {
    this.connectListeners.add(listener);
    return () => this.connectListeners.delete(listener);
  }

  /** Reads every page of the upstream's tools, resources, resource templates and prompts (those it declares). */
  async list(serverId: string, options: UpstreamCallOptions = {}): Promise<UpstreamListing> {
    const connection = this.connection(serverId);
    return connection.run('catalog sync', options, async (client, request) => {
      const caps = client.getServerCapabilities() ?? {};
      const params = (cursor: string | undefined) => (cursor ? { cursor } : {});
      const tools = caps.tools ? (await listRawTools(client, request)).filter(isTool) : [];
      const resources = caps.resources
        ? await readPages(async (c) => {
            const r = await client.listResources(params(c), request);
            return { items: r.resources, nextCursor: r.nextCursor };
          })
        : [];
      const resourceTemplates = caps.resources
        ? await readPages(async (c) => {
            const r = await client.listResourceTemplates(params(c), request);
            return { items: r.resourceTemplates, nextCursor: r.nextCursor };
          }).catch(() => [] as ResourceTemplate[])
        : [];
      const prompts = caps.prompts
        ? await readPages(async (c) => {
            const r = await client.listPrompts(params(c), request);
            return { items: r.prompts, nextCursor: r.nextCursor };
          })
        : [];
      return { tools, resources, resourceTemplates, prompts };
    });
  }

  /**
   * Which of a server's tools (upstream names) its upstream lists only to clients that declare
   * sampling, elicitation or roots, and what each needs: probed over short-lived connections of
   * their own (see CapabilityProbe), again only when the names change.
   */
  toolNeeds(
    serverId: string,
    toolNames: readonly string[],
    options: UpstreamCallOptions = {},
  ): Promise<ReadonlyMap<string, ClientFeature[]>> {
    let connection: UpstreamConnection;
    try {
      connection = this.connection(serverId);
    } catch (err) {
      return Promise.reject(err);
    }
    // A probe connection carries no one's OAuth token: an OAuth upstream's tools are taken as listed.
    if (connection.spec.auth !== undefined) return Promise.resolve(new Map());
    return this.probe.needs(connection.spec, toolNames, options.timeoutMs ?? connection.spec.callTimeoutMs);
  }
}
