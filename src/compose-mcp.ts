/**
 * The MCP side of one process, built on the services `openServices` (compose.ts) made: the
 * Streamable HTTP transport both routes share, the bundle endpoint (`/mcp/bundle/{bundle_key}`),
 * the gateway endpoint (`/mcp/gateway`) with its tool search and index, and what they take from
 * the rest at run time (the embedding provider, the general settings, the metrics). Only the
 * server builds it; the CLI opens the services without it. It builds and wires; the endpoints'
 * behaviour lives in src/mcp and src/search.
 */
import type { Middleware } from 'koa';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { BundleEndpoint } from './mcp/bundle-endpoint.js';
import { GatewayEndpoint } from './mcp/gateway-endpoint.js';
import { GatewayToolIndex } from './mcp/gateway-index.js';
import { GuardrailStage } from './mcp/guardrail-stage.js';
import type { McpOptions } from './mcp/transport/options.js';
import type { McpRoute } from './mcp/transport/route.js';
import { McpTransport } from './mcp/transport/router.js';
import { BundleCatchUp } from './live/bundle-catch-up.js';
import { RedisSharedSessions } from './redis/shared-sessions.js';
import { llmDescriptionExpander, ToolSearch, type ToolSearchOptions } from './search/index.js';
import type { EffectiveGeneralSettings } from './services/operations/general-settings-service.js';
import { EmbeddingCacheStore } from './stores/embedding-cache-store.js';
import { ExpansionCacheStore } from './stores/expansion-cache-store.js';
import { VERSION, type Services } from './compose.js';

/** The MCP server side of one process: the transport and the routes on it. */
export interface McpEndpoints {
  /** The Streamable HTTP core both routes share (sessions, transport rules, dispatch). */
  readonly core: McpTransport;
  readonly bundle: BundleEndpoint;
  readonly gateway: GatewayEndpoint;
  /** The tool search behind the gateway's `search` (fed with every bundle's tools). */
  readonly search: ToolSearch;
  /** One Koa middleware serving every MCP route; other paths pass on. */
  middleware(): Middleware;
  /**
   * The MCP route that serves a path on the fast path ahead of Koa (the Streamable HTTP paths
   * `/mcp/bundle/{bundle_key}` and `/mcp/gateway`), or undefined: Koa serves it.
   */
  fastRoute(path: string): McpRoute | undefined;
  /** Graceful stop, first step: GET streams end, no new sessions. */
  drain(): void;
  /** Graceful stop, last step: sessions end, running calls are cancelled. */
  close(): void;
  /** Resolves once every MCP request being served has answered, or after `maxMs`. */
  settled(maxMs: number): Promise<void>;
}

/** Tunables of the MCP side besides the transport's (tests shorten the search's timeouts). */
export interface McpComposeOptions extends McpOptions {
  search?: Partial<Omit<ToolSearchOptions, 'logger' | 'embedder' | 'cache'>>;
  /** The public base URL of a request (OAuth tokens are bound to the canonical URL of `/mcp/gateway` under it). */
  baseUrl?: (headers: Readonly<Record<string, string | string[] | undefined>>) => string;
}

/** Builds the MCP endpoints (`/mcp/bundle/{bundle_key}` and `/mcp/gateway`) and the tool search. */
export function composeMcp(services: Services, config: Config, logger: Logger, options: McpComposeOptions = {}): McpEndpoints {
  const { search: searchOptions, baseUrl, ...coreOptions } = options;
  // With Redis, stateful sessions are shared: any instance serves a session another one opened.
  const sharedSessions = config.redisUrl ? new RedisSharedSessions(config.redisUrl, services.bus, logger) : undefined;
  const core = new McpTransport({
    upstreams: services.upstreams,
    recorder: services.callRecorder,
    logger,
    guardrails: new GuardrailStage({ guardrails: services.liveGuardrails, fetch: services.outboundPolicy.fetch, logger }),
    config,
    version: VERSION,
    options: coreOptions,
    stateKey: services.requestStateKey,
    ...(sharedSessions ? { sharedSessions } : {}),
  });
  if (sharedSessions) core.onClose(() => void sharedSessions.close());
  // Several instances (a shared Redis): a key not in this registry yet may be a bundle another just created.
  const catchUp = config.redisUrl
    ? new BundleCatchUp({ read: (keyHash) => services.bundles.catchUpByKeyHash(keyHash), logger })
    : undefined;
  const bundle = new BundleEndpoint({
    core,
    registry: services.bundleRegistry,
    catalog: services.catalog,
    config,
    version: VERSION,
    catchUp,
    policy: services.toolPolicy,
  });
  // Embeddings and LLM description expansions of tool texts persist in the database (by content
  // hash), so a restart neither re-embeds nor re-expands a text it has seen. Both are capped.
  const embeddingCache = new EmbeddingCacheStore(services.db.knex);
  const search = new ToolSearch({
    ...searchOptions,
    logger,
    cache: embeddingCache,
    expansionCache: new ExpansionCacheStore(services.db.knex),
  });
  const index = new GatewayToolIndex(search, services.bundleRegistry, services.catalog, bundle.views);
  const gateway = new GatewayEndpoint({
    core,
    registry: services.bundleRegistry,
    catalog: services.catalog,
    views: bundle.views,
    auth: services.apiKeyAuth,
    oauth: services.oauthServer,
    ...(baseUrl ? { baseUrl } : {}),
    rateLimiter: services.rateLimiter,
    settings: services.gatewaySettings,
    memberships: services.teamMemberships,
    policy: services.toolPolicy,
    bus: services.bus,
    search,
    logger,
  });
  // The active embedding provider, now and after every change of the AI provider configurations
  // (on any instance: the change is announced on the bus, which also delivers here). A switch to
  // another model drops the old model's cached vectors, in the background (the store says why
  // that is safe with several instances).
  core.onClose(
    services.aiProviders.watchEmbedder((embedder) => {
      search.setEmbedder(embedder);
      const model = embedder?.model ?? null;
      embeddingCache.followActiveModel(model)?.then(
        (deleted) => logger.info({ model, deleted }, 'tool search: cached embeddings of other models deleted'),
        (err: unknown) =>
          logger.warn(
            { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
            'tool search: cached embeddings of other models not deleted; the cap bounds them',
          ),
      );
    }),
  );
  // On unless TOOLGATE_SEARCH_LLM_EXPANSION=false: while an LLM provider is active it expands each
  // tool text once per model (by content hash, kept in the database, in the background) with
  // wording for keyword search; the client is resolved per batch.
  if (config.searchLlmExpansion) {
    const ai = services.aiProviders;
    core.onClose(
      ai.watchLlmModel((model) =>
        search.setExpander(
          model === null ? null : { model, expand: async (texts, signal) => llmDescriptionExpander(await ai.llm()).expand(texts, signal) },
        ),
      ),
    );
  }
  core.onClose(() => {
    index.close();
    search.close();
  });
  // General settings the endpoints apply at run time (an explicit idle-timeout tunable wins).
  const applySettings = (s: EffectiveGeneralSettings): void => {
    core.setAllowedOrigins(s.allowed_origins);
    if (options.sessionIdleMs === undefined) core.sessions.setIdleTimeout(s.mcp_session_idle_timeout_minutes * 60_000);
  };
  applySettings(services.generalSettings.current);
  core.onClose(services.generalSettings.onChange(applySettings));
  services.metrics.setSources({ mcpSessions: () => core.sessions.size });
  const bundleMiddleware = bundle.middleware();
  const gatewayMiddleware = gateway.middleware();
  return {
    core,
    bundle,
    gateway,
    search,
    middleware: () => (ctx, next) => bundleMiddleware(ctx, () => gatewayMiddleware(ctx, next)),
    fastRoute: (path) => bundle.fastRoute(path) ?? gateway.fastRoute(path),
    drain: () => core.drain(),
    close: () => core.close(),
    settled: (maxMs) => core.settled(maxMs),
  };
}
