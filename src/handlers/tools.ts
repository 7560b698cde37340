import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listTools' | 'listToolChanges' | 'approveToolChange';

/** The cross-server tool catalog, and tool definitions changed since they were approved. */
export function createToolsHandlers({ services: { catalogService } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listTools: async ({ query }) => ({ status: 200, body: await catalogService.listTools(query) }),
    listToolChanges: async () => ({ status: 200, body: await catalogService.pendingToolChanges() }),
    approveToolChange: ({ params }) => catalogService.approveToolChange(params.tool_id).then(noContent),
  };
}
