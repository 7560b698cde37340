import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listTools';

/** The cross-server tool catalog. */
export function createToolsHandlers({ services: { catalogService } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listTools: async ({ query }) => ({ status: 200, body: await catalogService.listTools(query) }),
  };
}
