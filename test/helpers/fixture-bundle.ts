import type { ApiClient } from './api-client.js';
import { fixtureStdio, register, waitConnected } from './upstreams.js';

export interface FixtureBundle {
  serverId: string;
  /** Catalog tool id by upstream tool name. */
  toolIds: Record<string, string>;
  bundleId: string;
  bundleKey: string;
  /** Full URL of the bundle's MCP endpoint. */
  endpoint: string;
}

export interface FixtureBundleOptions {
  /** Upstream tool names to put in the bundle (default: every tool of the fixture). */
  tools?: string[];
  /** Per-tool overrides by upstream tool name. */
  overrides?: Record<string, Record<string, unknown>>;
  name?: string;
  /**
   * The fixture's Streamable HTTP URL (startFixtureHttp) to register instead of a stdio process:
   * an HTTP upstream's server-to-client requests arrive on the stream of the call that caused
   * them, so concurrent callers each get their own (over stdio only a lone call can be told).
   */
  upstreamUrl?: string;
  /** How `upstreamUrl` is reached: Streamable HTTP (default) or the 2024-11-05 HTTP+SSE transport (startFixtureHttp('sse')). */
  upstreamTransport?: 'streamable_http' | 'sse';
  description?: string;
}

/**
 * Registers our fixture upstream (stdio unless `upstreamUrl` is given, through the real pool), waits until it is connected and
 * synced, and puts its tools in a new bundle: the real path from registry to bundle endpoint.
 */
export async function setupFixtureBundle(api: ApiClient, baseUrl: string, options: FixtureBundleOptions = {}): Promise<FixtureBundle> {
  const name = options.name ?? `fixture-${Math.random().toString(36).slice(2, 8)}`;
  const server = await register(
    api,
    options.upstreamUrl
      ? { name, transport: options.upstreamTransport ?? 'streamable_http', url: options.upstreamUrl }
      : { name, transport: 'stdio', ...fixtureStdio() },
  );
  await waitConnected(api, server.id, 10);
  const listed = await api.get(`/api/v1/servers/${server.id}/tools?page_size=100`);
  if (listed.status !== 200) throw new Error(`listing tools: ${listed.status} ${listed.text}`);
  const toolIds: Record<string, string> = {};
  for (const tool of listed.body.items as { id: string; name: string }[]) toolIds[tool.name] = tool.id;
  const names = options.tools ?? Object.keys(toolIds);
  const created = await api.post('/api/v1/bundles', {
    name: `${name}-bundle`,
    description: options.description ?? 'Fixture tools for tests',
    tools: names.map((n, i) => ({
      tool_id: toolIds[n],
      display_order: i,
      ...(options.overrides?.[n] ? { override: options.overrides[n] } : {}),
    })),
  });
  if (created.status !== 201) throw new Error(`creating bundle: ${created.status} ${created.text}`);
  return {
    serverId: server.id,
    toolIds,
    bundleId: created.body.id,
    bundleKey: created.body.bundle_key,
    endpoint: `${baseUrl}/mcp/bundle/${created.body.bundle_key}`,
  };
}
