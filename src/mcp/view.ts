import type { ToolCallResult } from '../domain/catalog.js';
import type { ToolOverride } from '../domain/tool-override.js';
import type { McpContext, McpMethodDeps } from './context.js';
import type { Era, RawResult } from './protocol.js';

/** A tool an endpoint offers: the name clients call it by, and where it really lives. */
export interface OfferedTool {
  readonly name: string;
  /** The bundle whose entry (and override) this is: recorded with every call. */
  readonly bundleId: string;
  readonly toolId: string;
  readonly serverId: string;
  readonly upstreamName: string;
  readonly override: ToolOverride;
  /** `execution` as the upstream declares it (`taskSupport`: whether the tool may run as a task). */
  readonly execution: Record<string, unknown> | null;
  /** The MCP Tool object as `tools/list` shows it. */
  readonly wire: Record<string, unknown>;
}

/**
 * Why a tool of a bundle cannot be called right now although the bundle offers it: its server
 * is disabled, its server is not connected (down, connecting, failed), or its server is up but
 * no longer has the tool.
 */
export type UnavailableReason = 'server_disabled' | 'server_unavailable' | 'tool_gone';

/** A tool that is left out of `tools/list` for now, under the name clients know. */
export interface UnavailableTool {
  readonly name: string;
  readonly bundleId: string;
  readonly toolId: string;
  readonly serverId: string;
  readonly upstreamName: string;
  readonly reason: UnavailableReason;
}

/**
 * What one MCP request sees: the tools (and resources, prompts) an endpoint offers the caller,
 * compiled in memory. A bundle's view is one bundle; the gateway's is the caller's bundles joined.
 * The JSON-RPC methods read nothing else.
 */
export interface McpView {
  /** `serverInfo.title` of `initialize`. */
  readonly title: string;
  /** `instructions` of `initialize` / `server/discover`, when there are any. */
  readonly instructions: string | null;
  /** The offered tools in display order. */
  readonly tools: readonly OfferedTool[];
  /** Offered tools by the name clients call them by. */
  readonly byName: ReadonlyMap<string, OfferedTool>;
  /** Tools that cannot be called now, by the name clients know (never a name an offered tool holds). */
  readonly unavailable: ReadonlyMap<string, UnavailableTool>;
  /**
   * Tools the endpoint implements itself rather than an upstream (the gateway's `search` and
   * `execute`), by name; absent on a bundle. Listed in `tools` by their wire form only.
   */
  readonly builtins?: ReadonlyMap<string, BuiltinTool>;
  /** One `tools/list` page, pre-serialised; an unknown cursor is -32602. */
  toolsListPage(cursor: unknown, era: Era): RawResult;
  /** `resultType`, cache hints and server info of a 2026-07-28 list result. */
  statelessListFields(): Record<string, unknown>;
  /** Display name of a server. */
  serverName(serverId: string): string;
  /** The server whose resource (or resource template) matches `uri`. */
  serverOfResource(uri: string): string | undefined;
  /** The server offering the prompt `name`. */
  serverOfPrompt(name: string): string | undefined;
  resources(): Record<string, unknown>[];
  resourceTemplates(): Record<string, unknown>[];
  prompts(): Record<string, unknown>[];
}

/** Who is calling, as call records and access log lines name them. */
export interface McpCaller {
  readonly endpoint: 'bundle' | 'gateway';
  readonly userId: string | null;
  readonly apiKeyId: string | null;
}

/** A tool served by the gateway itself: `tools/call` of its name runs `call`. */
export interface BuiltinTool {
  readonly name: string;
  /** The MCP Tool object as `tools/list` shows it. */
  readonly wire: Record<string, unknown>;
  call(args: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Promise<ToolCallResult>;
}
