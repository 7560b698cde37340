import type { CatalogPrompt, CatalogResource, CatalogResourceTemplate, CatalogTool, CatalogView } from '../domain/catalog.js';

/** Everything the catalog knows of one upstream server. */
export interface ServerCatalogEntry {
  name: string;
  enabled: boolean;
  connected: boolean;
  tools: readonly CatalogTool[];
  resources: readonly CatalogResource[];
  resourceTemplates: readonly CatalogResourceTemplate[];
  prompts: readonly CatalogPrompt[];
}

/**
 * The catalog as the hot path reads it: plain maps in memory. The registry (catalog sync) writes
 * it after every sync, selection change or status change; bundles and the MCP endpoints read it
 * synchronously and cache derived answers against `version`.
 */
export class InMemoryCatalog implements CatalogView {
  private servers = new Map<string, ServerCatalogEntry>();
  private tools = new Map<string, CatalogTool>();
  private listeners = new Set<(serverIds: readonly string[]) => void>();
  private currentVersion = 0;

  get version(): number {
    return this.currentVersion;
  }

  tool(id: string): CatalogTool | undefined {
    return this.tools.get(id);
  }

  toolsOfServer(serverId: string): readonly CatalogTool[] {
    return this.servers.get(serverId)?.tools ?? [];
  }

  resourcesOfServer(serverId: string): readonly CatalogResource[] {
    return this.servers.get(serverId)?.resources ?? [];
  }

  resourceTemplatesOfServer(serverId: string): readonly CatalogResourceTemplate[] {
    return this.servers.get(serverId)?.resourceTemplates ?? [];
  }

  promptsOfServer(serverId: string): readonly CatalogPrompt[] {
    return this.servers.get(serverId)?.prompts ?? [];
  }

  serverState(serverId: string): { name: string; enabled: boolean; connected: boolean } | undefined {
    const s = this.servers.get(serverId);
    return s && { name: s.name, enabled: s.enabled, connected: s.connected };
  }

  /** Ids of every server in the catalog. */
  serverIds(): string[] {
    return [...this.servers.keys()];
  }

  onChange(listener: (serverIds: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Replaces everything known of one server (after a sync or a load from the database). */
  putServer(serverId: string, entry: ServerCatalogEntry): void {
    const previous = this.servers.get(serverId);
    for (const t of previous?.tools ?? []) this.tools.delete(t.id);
    this.servers.set(serverId, entry);
    for (const t of entry.tools) this.tools.set(t.id, t);
    this.changed([serverId]);
  }

  /** Changes a server's state flags without touching its lists. */
  patchServer(serverId: string, patch: Partial<Pick<ServerCatalogEntry, 'name' | 'enabled' | 'connected'>>): void {
    const entry = this.servers.get(serverId);
    if (!entry) return;
    this.servers.set(serverId, { ...entry, ...patch });
    this.changed([serverId]);
  }

  /** Sets the `enabled` flag of some tools; returns the ids whose flag actually changed. */
  setToolsEnabled(toolIds: readonly string[], enabled: boolean): string[] {
    const changedIds: string[] = [];
    const touched = new Set<string>();
    for (const id of toolIds) {
      const tool = this.tools.get(id);
      if (!tool || tool.enabled === enabled) continue;
      const next = { ...tool, enabled };
      this.tools.set(id, next);
      const entry = this.servers.get(tool.serverId);
      if (entry) this.servers.set(tool.serverId, { ...entry, tools: entry.tools.map((t) => (t.id === id ? next : t)) });
      changedIds.push(id);
      touched.add(tool.serverId);
    }
    if (touched.size) this.changed([...touched]);
    return changedIds;
  }

  /** Forgets a server and its tools (server deleted). */
  removeServer(serverId: string): void {
    const entry = this.servers.get(serverId);
    if (!entry) return;
    for (const t of entry.tools) this.tools.delete(t.id);
    this.servers.delete(serverId);
    this.changed([serverId]);
  }

  private changed(serverIds: string[]): void {
    this.currentVersion += 1;
    for (const listener of this.listeners) listener(serverIds);
  }
}
