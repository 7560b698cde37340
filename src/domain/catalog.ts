/**
 * The seam between the upstream side (server registry, catalog sync: src/services/catalog/servers-service.ts,
 * catalog-sync.ts, and the pool in src/upstream/) and the downstream side (bundles, the MCP endpoints). The upstream side
 * implements these interfaces; bundles and the MCP endpoints only consume them, from memory,
 * so the hot path never waits on the database.
 */

import type { ClientFeature } from './client-features.js';

/** JSON Schema object as MCP carries it (`inputSchema`, `outputSchema`). */
export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** MCP tool annotations (hints; untrusted unless the server is trusted). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** One tool of one upstream server, as the catalog holds it. */
export interface CatalogTool {
  /** Stable id of server + tool name (uuid), used by bundles and tool selection. */
  readonly id: string;
  readonly serverId: string;
  readonly serverName: string;
  /** The tool's real name upstream. */
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject | null;
  readonly annotations: ToolAnnotations | null;
  /** `_meta` of the upstream tool definition, passed through. */
  readonly meta: Record<string, unknown> | null;
  /** `execution` of the upstream tool definition (`taskSupport`: whether it may run as a task). */
  readonly execution?: Record<string, unknown> | null;
  /**
   * The client features the upstream lists this tool to only (it asks the client for them):
   * hidden from a caller that did not declare them. Absent: listed to any client.
   */
  readonly clientCapabilities?: readonly ClientFeature[];
  /** Admin's tool selection: disabled tools are served nowhere. */
  readonly enabled: boolean;
  /**
   * True when the upstream changed the tool's description, input schema or annotations after it
   * was approved, on a server that requires approval: withheld from every bundle and the gateway
   * until an admin approves the change.
   */
  readonly held?: boolean;
  /**
   * False once the tool disappeared upstream (kept so bundles can show it), and while its server
   * is disabled. Whether the server is connected right now is `serverState(id).connected`.
   */
  readonly available: boolean;
  /**
   * True for a script tool of an attached skill: it runs in the gateway's sandbox, so it is
   * served while its server is enabled, whether or not the upstream is connected.
   */
  readonly script?: boolean;
}

export interface CatalogResource {
  readonly serverId: string;
  readonly uri: string;
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly mimeType: string | null;
  readonly size: number | null;
  readonly annotations: Record<string, unknown> | null;
}

export interface CatalogResourceTemplate {
  readonly serverId: string;
  readonly uriTemplate: string;
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly mimeType: string | null;
}

export interface CatalogPrompt {
  readonly serverId: string;
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly arguments: readonly { name: string; description?: string; required?: boolean }[];
}

/** Read access to the in-memory catalog. Lookups are synchronous: no I/O on the hot path. */
export interface CatalogView {
  /** Increments on every change; lets consumers cache derived answers (pre-serialised lists). */
  readonly version: number;
  tool(id: string): CatalogTool | undefined;
  toolsOfServer(serverId: string): readonly CatalogTool[];
  resourcesOfServer(serverId: string): readonly CatalogResource[];
  resourceTemplatesOfServer(serverId: string): readonly CatalogResourceTemplate[];
  promptsOfServer(serverId: string): readonly CatalogPrompt[];
  /** Whether the server is registered, enabled and currently connected. */
  serverState(serverId: string): { name: string; enabled: boolean; connected: boolean } | undefined;
  /** Called after any change, with the ids of the servers whose catalog changed. */
  onChange(listener: (serverIds: readonly string[]) => void): () => void;
}
