import type { McpContext, McpMethodDeps } from '../context.js';
import { RpcCode, rpcError, SUPPORTED_VERSIONS } from '../protocol.js';

/** What the bundle endpoint offers: tools (with change notifications), resources, prompts. */
export const CAPABILITIES = { tools: { listChanged: true }, resources: {}, prompts: {} } as const;

/** `initialize` (legacy): the negotiated version, capabilities, and the bundle description as instructions. */
export function initialize(_params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Record<string, unknown> {
  if (ctx.era !== 'legacy') throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const bundle = ctx.view.bundle;
  const result: Record<string, unknown> = {
    protocolVersion: ctx.protocolVersion,
    capabilities: CAPABILITIES,
    serverInfo: { ...deps.serverInfo, title: `Toolgate bundle: ${bundle.name}` },
  };
  if (bundle.description) result.instructions = bundle.description;
  return result;
}

/** `server/discover` (2026-07-28): versions, capabilities, instructions. */
export function discover(_params: Record<string, unknown>, ctx: McpContext): Record<string, unknown> {
  if (ctx.era !== 'modern') throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const result: Record<string, unknown> = {
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: CAPABILITIES,
    ...ctx.view.modernListFields(),
  };
  if (ctx.view.bundle.description) result.instructions = ctx.view.bundle.description;
  return result;
}

/** `ping`: an empty result. */
export function ping(): Record<string, unknown> {
  return {};
}
