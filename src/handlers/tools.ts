import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { toolToApi } from './servers.js';

type Ops = 'listTools';

/** The cross-server tool catalog. */
export function createToolsHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const { servers } = deps;
  return {
    listTools: async ({ query }) => {
      const page = query.page ?? 1;
      const pageSize = query.page_size ?? 20;
      const { rows, total } = await servers.listTools({
        page,
        pageSize,
        ...(query.search ? { search: query.search } : {}),
        ...(query.server_id ? { serverId: query.server_id } : {}),
        ...(query.enabled !== undefined ? { enabled: query.enabled } : {}),
      });
      return { status: 200, body: { items: rows.map((r) => toolToApi(r, servers)), total, page, page_size: pageSize } };
    },
  };
}
