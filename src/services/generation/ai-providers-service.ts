import type { SettingsResetHook } from '../operations/general-settings-service.js';
import { randomUUID } from 'node:crypto';
import { AiError } from '../../ai/ai-errors.js';
import { createEmbeddingClient, createLlmClient, type AdapterDeps } from '../../ai/ai-clients.js';
import type {
  AiAdapterConfig,
  AiProviderSpec,
  ChatEvent,
  ChatRequest,
  ChatResult,
  EmbeddingClient,
  LlmClient,
  StructuredRequest,
} from '../../ai/ai-types.js';
import { endpointIdentity, effectiveEndpoint, supportsType } from '../../ai/provider-endpoints.js';
import { ConflictError, NotFoundError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import { OutboundRefusedError, type OutboundPolicy } from '../../lib/outbound-policy.js';
import { SecretBoxError, type SecretBox } from '../../lib/secret-box.js';
import type { Logger } from '../../logger.js';
import type { AiProviderPatch, AiProvidersStore, DbAiProviderRow, DbAiProviderType } from '../../stores/ai-providers-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ChangeBus } from '../../redis/change-bus.js';
import type { ActivityEntryInput, ActivityLog } from '../operations/activity-log.js';

/**
 * AI provider configurations (REST CRUD, activation, test) and the clients built from them for
 * server generation, skills and tool search. About 500 lines and one file on purpose: a client is
 * cached by the configuration's version and reports a "model gone" answer back onto the same row,
 * so the configuration rules and the client cache stay in one place.
 */

type Schemas = components['schemas'];
export type AiProviderDto = Schemas['AIProvider'];
export type AiProviderCreateInput = Schemas['AIProviderCreate'];
export type AiProviderUpdateInput = Schemas['AIProviderUpdate'];
export type AiProviderTestDto = Schemas['AIProviderTestResult'];

export interface AiProvidersServiceDeps {
  /** Runs the activation changes (create with auto-activation, activate) in one transaction. */
  tx: Transactor;
  store: AiProvidersStore;
  secrets: SecretBox;
  /** The process's outbound-address policy (shared, so run-time allow-list changes apply). */
  policy: OutboundPolicy;
  clock: Clock;
  logger: Logger;
  /** The admin activity log: each change is recorded in its own transaction. */
  activity: ActivityLog;
  /** Adapter limits (tests lower them). */
  adapter?: Omit<AdapterDeps, 'policy'>;
  /** Where a change of the configurations is announced (`ai_providers`), to this instance and the others. */
  bus: ChangeBus;
}

/**
 * The masked form of a key: first 3 and last 4 characters for keys of 20 or more, the last 4 for
 * 12 to 19, nothing for shorter ones (a mask must not give away a large share of a short key).
 */
export function maskApiKey(key: string): string {
  // One shape for every key: its last four characters, and only for keys long enough that four
  // characters give nothing useful away.
  return key.length >= 12 ? `…${key.slice(-4)}` : '…';
}

const issue = (loc: (string | number)[], msg: string, type: string, input: unknown): ValidationIssue => ({
  loc: ['body', ...loc],
  msg,
  type,
  input,
  ctx: {},
});

/** An AI provider's activity entry: ids, names, provider and model, never the API key. */
function entry(action: string, row: DbAiProviderRow, details: ActivityEntryInput['details'] = {}): ActivityEntryInput {
  return {
    action,
    target: { type: 'ai_provider', id: row.id, name: row.display_name },
    details: { provider_type: row.provider_type, provider: row.provider, model: row.model, ...details },
  };
}

/**
 * AI provider configurations: CRUD, activation (at most one active per type), connection tests,
 * and the clients other features use (`llm()`, `embedder()`). The API key is sealed before it is
 * stored and is opened only to build an adapter; responses carry `has_api_key` and a mask.
 */
export class AiProvidersService {
  private readonly clients = new Map<string, { version: string; client: ReportingClient }>();

  constructor(private readonly deps: AiProvidersServiceDeps) {}

  /**
   * Calls `apply` with the active embedding provider's client (null when none), now and after every
   * committed change of the configurations on any instance (the change bus delivers `ai_providers`
   * here too). The tool search uses it to pick up a new active provider. Returns the stop.
   */
  watchEmbedder(apply: (embedder: EmbeddingClient | null) => void): () => void {
    return this.watch(() => this.embedder(), apply, 'tool search: no embedder');
  }

  /**
   * Calls `apply` with the active LLM provider's model (null when none), now and after every
   * committed change of the configurations on any instance, like {@link watchEmbedder}. The tool
   * search keys its description expansions by it; the client itself is resolved per use (`llm()`).
   * Returns the stop.
   */
  watchLlmModel(apply: (model: string | null) => void): () => void {
    return this.watch(
      () => this.deps.store.findActive('llm').then((row) => (row ? row.model : null)),
      apply,
      'tool search: no LLM for description expansion',
    );
  }

  /**
   * Reads now and after every change of the configurations, and applies only the newest read: two
   * changes in quick succession start two reads that may finish in either order, and the older
   * one must not undo the newer (a stale embedder, or its model's cached vectors deleted).
   */
  private watch<T>(read: () => Promise<T>, apply: (value: T) => void, failure: string): () => void {
    let latest = 0;
    const refresh = (): Promise<void> => {
      const n = ++latest;
      return read().then(
        (value) => {
          if (n === latest) apply(value);
        },
        (err: unknown) => {
          if (n === latest) this.deps.logger.warn({ reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' }, failure);
        },
      );
    };
    void refresh();
    return this.deps.bus.subscribe((m) => {
      if (m.kind === 'ai_providers') return refresh();
    });
  }

  private changed(): void {
    this.deps.bus.publish({ kind: 'ai_providers' });
  }

  // ---------------------------------------------------------------- the API

  async list(): Promise<{ items: AiProviderDto[]; total: number }> {
    const items = (await this.deps.store.list()).map((r) => this.toDto(r));
    return { items, total: items.length };
  }

  async get(id: string): Promise<AiProviderDto> {
    return this.toDto(await this.row(id));
  }

  async create(input: AiProviderCreateInput): Promise<AiProviderDto> {
    const issues: ValidationIssue[] = [];
    if (!supportsType(input.provider, input.provider_type))
      issues.push(
        issue(
          ['provider'],
          `${input.provider} cannot be an ${input.provider_type} provider (it offers no embeddings)`,
          'value_error',
          input.provider,
        ),
      );
    issues.push(...this.checkEndpoint(input.provider, input.endpoint ?? null));
    if (issues.length) throw new RequestValidationError(issues);
    const now = this.deps.clock.now();
    const row = await this.deps.tx.transaction(async (stores) => {
      const store = stores.aiProviders;
      await store.lockType(input.provider_type);
      const active = await store.findActive(input.provider_type);
      const created = await store.insert(
        {
          id: randomUUID(),
          provider_type: input.provider_type,
          provider: input.provider,
          display_name: input.display_name ?? `${input.provider} ${input.model}`,
          model: input.model,
          endpoint: input.endpoint ?? null,
          endpoint_identity: endpointIdentity(input.provider, input.endpoint),
          api_key_sealed: input.api_key ? this.deps.secrets.seal(input.api_key) : null,
          api_key_masked: input.api_key ? maskApiKey(input.api_key) : null,
          config: (input.config ?? {}) as Record<string, unknown>,
          is_active: false,
          connection_verified: false,
          connection_verified_at: null,
          model_unavailable: false,
        },
        now,
      );
      const saved = input.is_active || !active ? ((await store.activate(created.id, created.provider_type, now)) ?? created) : created;
      await this.deps.activity.record(stores, entry('ai_provider.create', saved, { has_api_key: !!input.api_key }));
      return saved;
    });
    this.deps.logger.info(
      { aiProviderId: row.id, providerType: row.provider_type, provider: row.provider, model: row.model, active: row.is_active },
      'ai provider created',
    );
    this.changed();
    return this.toDto(row);
  }

  async update(id: string, patch: AiProviderUpdateInput): Promise<AiProviderDto> {
    const current = await this.row(id);
    const changes: AiProviderPatch = {};
    if (patch.display_name !== undefined) changes.display_name = patch.display_name;
    if (patch.config !== undefined) changes.config = patch.config as Record<string, unknown>;
    const endpointChanged = patch.endpoint !== undefined && (patch.endpoint ?? null) !== current.endpoint;
    const modelChanged = patch.model !== undefined && patch.model !== current.model;
    if (endpointChanged) {
      const issues = this.checkEndpoint(current.provider, patch.endpoint ?? null);
      if (issues.length) throw new RequestValidationError(issues);
      changes.endpoint = patch.endpoint ?? null;
    }
    if (modelChanged) changes.model = patch.model;
    if (endpointChanged || modelChanged) {
      changes.endpoint_identity = endpointIdentity(current.provider, changes.endpoint !== undefined ? changes.endpoint : current.endpoint);
      changes.model_unavailable = false;
    }
    if (patch.api_key !== undefined) {
      changes.api_key_sealed = patch.api_key === null ? null : this.deps.secrets.seal(patch.api_key);
      changes.api_key_masked = patch.api_key === null ? null : maskApiKey(patch.api_key);
    }
    if (endpointChanged || modelChanged || patch.api_key !== undefined) {
      changes.connection_verified = false;
      changes.connection_verified_at = null;
    }
    const row = await this.deps.tx.transaction(async (stores) => {
      const saved = await stores.aiProviders.update(id, changes, this.deps.clock.now());
      if (!saved) throw new NotFoundError('No such AI provider', 'ai_provider_not_found');
      // Field names only: a new API key is a secret.
      await this.deps.activity.record(stores, entry('ai_provider.update', saved, { fields: Object.keys(patch).sort() }));
      return saved;
    });
    this.deps.logger.info({ aiProviderId: id, fields: Object.keys(patch) }, 'ai provider updated');
    this.changed();
    return this.toDto(row);
  }

  /** Deletes a configuration and its sealed key; its type has no active provider afterwards when it was the active one. */
  async delete(id: string): Promise<void> {
    const row = await this.deps.tx.transaction(async (stores) => {
      const deleted = await stores.aiProviders.delete(id);
      if (!deleted) throw new NotFoundError('No such AI provider', 'ai_provider_not_found');
      await this.deps.activity.record(stores, entry('ai_provider.delete', deleted, { was_active: deleted.is_active }));
      return deleted;
    });
    this.clients.delete(id);
    this.deps.logger.info({ aiProviderId: id, wasActive: row.is_active }, 'ai provider deleted');
    this.changed();
  }

  /**
   * The general-settings reset's part: deletes every configuration in the reset's transaction
   * and drops the cached clients once it has committed.
   */
  readonly resetHook: SettingsResetHook = {
    reset: async (stores) => {
      await stores.aiProviders.deleteAll();
    },
    afterCommit: () => {
      this.clients.clear();
      this.changed();
    },
  };

  /** Deletes every configuration. */
  async deleteAll(): Promise<number> {
    this.clients.clear();
    const deleted = await this.deps.store.deleteAll();
    this.changed();
    return deleted;
  }

  async activate(id: string): Promise<AiProviderDto> {
    const row = await this.deps.tx.transaction(async (stores) => {
      const store = stores.aiProviders;
      const found = await store.findById(id);
      if (!found) throw new NotFoundError('No such AI provider', 'ai_provider_not_found');
      let active: DbAiProviderRow | undefined = found;
      if (!found.is_active) {
        await store.lockType(found.provider_type);
        active = await store.activate(id, found.provider_type, this.deps.clock.now());
      }
      if (active) await this.deps.activity.record(stores, entry('ai_provider.activate', active, { changed: !found.is_active }));
      return active;
    });
    if (!row) throw new NotFoundError('No such AI provider', 'ai_provider_not_found');
    this.deps.logger.info({ aiProviderId: id, providerType: row.provider_type }, 'ai provider activated');
    this.changed();
    return this.toDto(row);
  }

  /**
   * A real round trip with the stored key and no retries: a one-token completion (`llm`) or one
   * embedding (`embedding`). Records `connection_verified` (and the time of a success), and the
   * "model gone" state on a 404. A failure is a result, not an error.
   */
  async test(id: string, signal?: AbortSignal): Promise<AiProviderTestDto> {
    const row = await this.row(id);
    const testedAt = this.deps.clock.now();
    const started = performance.now();
    let error: string | null = null;
    let answered = true;
    let modelGone: boolean | undefined;
    try {
      const spec = this.spec(row, { max_retries: 0 });
      if (row.provider_type === 'llm') {
        await createLlmClient(spec, this.adapterDeps()).chat({
          messages: [{ role: 'user', content: 'Reply with: ok' }],
          maxTokens: 1,
          ...(signal ? { signal } : {}),
        });
      } else {
        const [vector] = await createEmbeddingClient(spec, this.adapterDeps()).embed(['ping'], signal);
        if (!vector?.length) throw new AiError('bad_response', 'The provider returned an empty embedding');
      }
      modelGone = false;
    } catch (err) {
      if (err instanceof AiError) {
        error = err.message;
        answered = err.answered;
        if (err.needsReconfiguration) modelGone = true;
      } else if (err instanceof ConflictError) {
        error = err.message;
        answered = false;
      } else throw err;
    }
    const latency = Math.round((performance.now() - started) * 10) / 10;
    await this.deps.store.recordHealth(row.id, row.updated_at, {
      connection_verified: error === null,
      ...(error === null ? { connection_verified_at: testedAt } : {}),
      ...(modelGone !== undefined ? { model_unavailable: modelGone } : {}),
    });
    this.deps.logger.info({ aiProviderId: id, ok: error === null, latencyMs: latency }, 'ai provider tested');
    return { ok: error === null, latency_ms: answered ? latency : null, error, tested_at: testedAt.toISOString() };
  }

  // ---------------------------------------------------------------- clients for other features

  /**
   * The chat client of an `llm` provider: the given one, or the active one. 404 for an unknown id,
   * 400 for an `embedding` provider, 409 when none is active or its key cannot be decrypted.
   * A "model gone" answer from the vendor is recorded on the configuration (`needs_reconfiguration`).
   */
  async llm(providerId?: string): Promise<LlmClient> {
    return this.client(await this.resolve('llm', providerId));
  }

  /** The active embedding provider's client, or null when none is configured (search falls back to keywords). */
  async embedder(): Promise<EmbeddingClient | null> {
    const row = await this.deps.store.findActive('embedding');
    return row ? this.client(row) : null;
  }

  /**
   * The chat client of an `llm` provider (as `llm`), and whether to ask it for reasoning: only where
   * the admin gave the provider a thinking budget (reasoning costs tokens, and not every model has it).
   */
  async llmWithReasoning(providerId?: string): Promise<{ client: LlmClient; thinking: boolean }> {
    const row = await this.resolve('llm', providerId);
    const { config } = this.toDto(row);
    return { client: this.client(row), thinking: typeof config.thinking_budget_tokens === 'number' };
  }

  /** The configuration `llm(providerId)` would use, as the API shows it (no key). */
  async resolveDto(type: DbAiProviderType, providerId?: string): Promise<AiProviderDto> {
    return this.toDto(await this.resolve(type, providerId));
  }

  private async resolve(type: DbAiProviderType, providerId?: string): Promise<DbAiProviderRow> {
    if (providerId) {
      const row = await this.deps.store.findById(providerId);
      if (!row) throw new NotFoundError('No such AI provider', 'ai_provider_not_found');
      if (row.provider_type !== type)
        throw new ConflictError(`AI provider ${providerId} is not an ${type} provider`, 'ai_provider_wrong_type');
      return row;
    }
    const active = await this.deps.store.findActive(type);
    if (!active)
      throw new ConflictError(
        `No active ${type} provider is configured; add one under /api/v1/settings/providers`,
        `no_active_${type}_provider`,
      );
    return active;
  }

  private client(row: DbAiProviderRow): ReportingClient {
    const version = `${row.updated_at.getTime()}:${row.model_unavailable}`;
    const cached = this.clients.get(row.id);
    if (cached?.version === version) return cached.client;
    const spec = this.spec(row);
    const deps = this.adapterDeps();
    const inner = row.provider_type === 'llm' ? createLlmClient(spec, deps) : createEmbeddingClient(spec, deps);
    const client = new ReportingClient(inner, (gone) => this.recordModelState(row, gone), row.model_unavailable);
    this.clients.set(row.id, { version, client });
    return client;
  }

  private recordModelState(row: DbAiProviderRow, gone: boolean): void {
    this.clients.delete(row.id);
    void this.deps.store
      .recordHealth(row.id, row.updated_at, { model_unavailable: gone, ...(gone ? { connection_verified: false } : {}) })
      .then(() =>
        this.deps.logger.warn({ aiProviderId: row.id, model: row.model, modelUnavailable: gone }, 'ai provider model state changed'),
      )
      .catch((err: unknown) =>
        this.deps.logger.debug({ aiProviderId: row.id, err: String(err) }, 'could not record ai provider model state'),
      );
  }

  // ---------------------------------------------------------------- helpers

  private async row(id: string): Promise<DbAiProviderRow> {
    const row = await this.deps.store.findById(id);
    if (!row) throw new NotFoundError('No such AI provider', 'ai_provider_not_found');
    return row;
  }

  private adapterDeps(): AdapterDeps {
    return { ...this.deps.adapter, policy: this.deps.policy };
  }

  /** The stored key, opened; ConflictError when it cannot be decrypted (the configuration needs a new key). */
  private apiKey(row: DbAiProviderRow): string | null {
    if (!row.api_key_sealed) return null;
    try {
      return this.deps.secrets.open(row.api_key_sealed);
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      throw new ConflictError(
        `The stored API key of AI provider "${row.display_name}" cannot be decrypted (was the master key replaced?); set a new api_key`,
        'ai_provider_needs_reconfiguration',
      );
    }
  }

  private keyReadable(row: DbAiProviderRow): boolean {
    if (!row.api_key_sealed) return true;
    try {
      this.deps.secrets.open(row.api_key_sealed);
      return true;
    } catch {
      return false;
    }
  }

  private spec(row: DbAiProviderRow, overrides: AiAdapterConfig = {}): AiProviderSpec {
    return {
      provider: row.provider,
      model: row.model,
      endpoint: row.endpoint,
      apiKey: this.apiKey(row),
      config: { ...(row.config as AiAdapterConfig), ...overrides },
    };
  }

  /** 422 issues for an endpoint: required without a default, no credentials in it, allowed by the outbound policy. */
  private checkEndpoint(provider: DbAiProviderRow['provider'], endpoint: string | null): ValidationIssue[] {
    const effective = effectiveEndpoint(provider, endpoint);
    if (!effective) return [issue(['endpoint'], `${provider} needs an endpoint (the API's base URL)`, 'missing', null)];
    let url: URL;
    try {
      url = new URL(effective);
    } catch {
      return [issue(['endpoint'], 'URL is not valid', 'url_parsing', endpoint)];
    }
    if (url.username || url.password)
      return [issue(['endpoint'], 'Credentials in the URL are not allowed; use api_key', 'url_credentials', '[redacted]')];
    try {
      this.deps.policy.checkStatic(url);
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      const which = endpoint ? 'The endpoint' : `The default endpoint of ${provider} (${effective})`;
      return [
        issue(
          ['endpoint'],
          `${which} is not allowed by the outbound-address policy: ${err.message}; add the host to TOOLGATE_OUTBOUND_ALLOWLIST (e.g. 127.0.0.1 for a local server)`,
          'value_error',
          endpoint,
        ),
      ];
    }
    return [];
  }

  private toDto(row: DbAiProviderRow): AiProviderDto {
    return {
      id: row.id,
      provider_type: row.provider_type,
      provider: row.provider,
      display_name: row.display_name,
      model: row.model,
      has_api_key: row.api_key_sealed !== null,
      api_key_masked: row.api_key_masked,
      needs_reconfiguration: row.model_unavailable || !this.keyReadable(row),
      endpoint: row.endpoint,
      config: row.config,
      is_active: row.is_active,
      connection_verified: row.connection_verified,
      connection_verified_at: row.connection_verified_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

/**
 * A client that tells its configuration what the vendor said about the model: a 404 marks it
 * gone (`needs_reconfiguration`), the next success after that clears the mark.
 */
class ReportingClient implements LlmClient, EmbeddingClient {
  readonly provider: LlmClient['provider'];
  readonly model: string;

  constructor(
    private readonly inner: LlmClient | EmbeddingClient,
    private readonly report: (gone: boolean) => void,
    private markedGone: boolean,
  ) {
    this.provider = inner.provider;
    this.model = inner.model;
  }

  private async watch<T>(call: () => Promise<T>): Promise<T> {
    try {
      const result = await call();
      if (this.markedGone) {
        this.markedGone = false;
        this.report(false);
      }
      return result;
    } catch (err) {
      if (err instanceof AiError && err.needsReconfiguration && !this.markedGone) {
        this.markedGone = true;
        this.report(true);
      }
      throw err;
    }
  }

  async *chatStream(request: ChatRequest): AsyncIterable<ChatEvent> {
    const inner = this.inner as LlmClient;
    let failed: unknown;
    try {
      yield* inner.chatStream(request);
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      // Reported after the stream: a consumer that stops early counts as a success.
      void this.watch(() => (failed === undefined ? Promise.resolve() : Promise.reject(failed))).catch(() => undefined);
    }
  }

  chat(request: ChatRequest): Promise<ChatResult> {
    return this.watch(() => (this.inner as LlmClient).chat(request));
  }

  structured<T>(request: StructuredRequest): Promise<T> {
    return this.watch(() => (this.inner as LlmClient).structured<T>(request));
  }

  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.watch(() => (this.inner as EmbeddingClient).embed(texts, signal));
  }
}
