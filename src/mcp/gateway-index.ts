import type { CatalogView } from '../domain/catalog.js';
import type { BundlesRegistry, LiveBundle } from '../live/bundles-registry.js';
import { toolDocumentId, toToolDocument, type ToolSearch } from '../search/index.js';
import type { BundleViews } from './bundle-view.js';

/**
 * Keeps the tool search fed with every bundle's offered tools, as the bundle's compiled view
 * shows them (overrides applied, pinned and hidden arguments gone): one document per (bundle,
 * catalog tool). Updated incrementally when a bundle or the catalog of one of its servers
 * changes, never on the path of a `tools/list` or a search. Documents carry the bundle's tool
 * name; the gateway shows its own (disambiguated) name in results.
 */
export class GatewayToolIndex {
  /** Document ids indexed per bundle (with their server), so a change replaces exactly what it touched. */
  private readonly docsOf = new Map<string, Map<string, string>>();
  private readonly unsubscribe: (() => void)[];

  constructor(
    private readonly search: ToolSearch,
    private readonly registry: BundlesRegistry,
    private readonly catalog: CatalogView,
    private readonly views: BundleViews,
  ) {
    this.unsubscribe = [
      registry.onChange((change) => {
        const bundle = change.kind === 'deleted' ? undefined : registry.get(change.bundleId);
        if (bundle) this.index(bundle);
        else this.drop(change.bundleId);
      }),
      catalog.onChange((serverIds) => {
        const servers = new Set(serverIds);
        for (const bundle of registry.bundlesOfServers(servers)) this.index(bundle, servers);
      }),
    ];
    for (const bundle of registry.all()) this.index(bundle);
  }

  /** Stops listening (the index keeps what it has). */
  close(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /**
   * Brings one bundle's documents in line with its current view: all of them, or (after a
   * catalog change) only those of `servers`, so one changed server costs its own tools.
   * Unchanged documents cost a string comparison in the search.
   */
  index(bundle: LiveBundle, servers?: ReadonlySet<string>): void {
    const view = this.views.of(bundle);
    const previous = this.docsOf.get(bundle.id) ?? new Map<string, string>();
    const current = new Map<string, string>();
    if (servers) for (const [id, serverId] of previous) if (!servers.has(serverId)) current.set(id, serverId);
    for (const tool of view.tools) {
      if (servers && !servers.has(tool.serverId)) continue;
      const id = toolDocumentId(bundle.id, tool.toolId);
      current.set(id, tool.serverId);
      const wire = tool.wire;
      this.search.upsert(
        toToolDocument({
          id,
          name: tool.name,
          title: typeof wire.title === 'string' ? wire.title : null,
          description: typeof wire.description === 'string' ? wire.description : null,
          serverName: view.serverName(tool.serverId),
          inputSchema: wire.inputSchema,
        }),
      );
    }
    for (const id of previous.keys()) if (!current.has(id)) this.search.remove(id);
    this.docsOf.set(bundle.id, current);
  }

  private drop(bundleId: string): void {
    for (const id of this.docsOf.get(bundleId)?.keys() ?? []) this.search.remove(id);
    this.docsOf.delete(bundleId);
  }
}
