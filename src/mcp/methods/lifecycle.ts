import type { McpContext, McpMethodDeps } from '../context.js';
import { RpcCode, rpcError, SUPPORTED_VERSIONS } from '../protocol.js';

/**
 * What the MCP endpoints offer stateful sessions: tools (with change notifications), resources
 * (with subscriptions relayed to upstreams), prompts, completion and logging relayed from upstreams.
 */
export const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true },
  prompts: {},
  completions: {},
  logging: {},
  /** Tasks (2025-11-25) for `tools/call` of the tools that declare task support (src/mcp/methods/tasks.ts). */
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
} as const;

/**
 * What 2026-07-28 requests are offered: list changes on `subscriptions/listen` streams; no
 * resource subscriptions (the revision has no `resources/subscribe`, and listen streams do not
 * relay `resources/updated` yet).
 */
export const STATELESS_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
  /** The tasks extension (src/mcp/methods/tasks.ts). */
  extensions: { 'io.modelcontextprotocol/tasks': {} },
} as const;

/** `initialize` (stateful sessions): the negotiated version, capabilities, and the view's instructions (a bundle's description). */
export function initialize(_params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Record<string, unknown> {
  if (ctx.era !== 'stateful') throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const result: Record<string, unknown> = {
    protocolVersion: ctx.protocolVersion,
    capabilities: CAPABILITIES,
    serverInfo: { ...deps.serverInfo, title: ctx.view.title },
  };
  if (ctx.view.instructions) result.instructions = ctx.view.instructions;
  return result;
}

/** `server/discover` (2026-07-28): versions, capabilities, instructions. */
export function discover(_params: Record<string, unknown>, ctx: McpContext): Record<string, unknown> {
  if (ctx.era !== 'stateless') throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const result: Record<string, unknown> = {
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: STATELESS_CAPABILITIES,
    ...ctx.view.statelessListFields(),
  };
  if (ctx.view.instructions) result.instructions = ctx.view.instructions;
  return result;
}

/** `ping`: an empty result. */
export function ping(): Record<string, unknown> {
  return {};
}
