import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  | 'listServers'
  | 'createServer'
  | 'createOpenApiServer'
  | 'getServer'
  | 'deleteServer'
  | 'updateServer'
  | 'enableServer'
  | 'disableServer'
  | 'refreshServer'
  | 'listServerTools'
  | 'listServerResources'
  | 'listServerPrompts'
  | 'updateToolSelection'
  | 'setServerNetwork'
  | 'attachSkillToServer'
  | 'detachSkillFromServer';

/** Upstream MCP servers: registry, their catalog, tool selection, skills attachment. */
export function createServersHandlers({
  services: { servers, openApiServers, catalogService: catalog, skillTools },
}: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listServers: async (req) => ({ status: 200, body: await servers.list(req.query, req.principal!) }),
    createServer: async ({ body }) => ({ status: 201, body: await servers.create(body) }),
    createOpenApiServer: async ({ body }) => ({ status: 201, body: await openApiServers.create(body) }),
    getServer: async (req) => ({ status: 200, body: await servers.get(req.params.server_id, req.principal!) }),
    deleteServer: ({ params }) => servers.delete(params.server_id).then(noContent),
    updateServer: async ({ params, body }) => ({ status: 200, body: await servers.update(params.server_id, body) }),
    enableServer: async ({ params }) => ({ status: 200, body: await servers.setEnabled(params.server_id, true) }),
    disableServer: async ({ params }) => ({ status: 200, body: await servers.setEnabled(params.server_id, false) }),
    refreshServer: async ({ params }) => ({ status: 200, body: await servers.refresh(params.server_id) }),
    listServerTools: async ({ params, query }) => ({ status: 200, body: await catalog.listServerTools(params.server_id, query) }),
    listServerResources: async ({ params, query }) => ({ status: 200, body: await catalog.listResources(params.server_id, query) }),
    listServerPrompts: async ({ params, query }) => ({ status: 200, body: await catalog.listPrompts(params.server_id, query) }),
    setServerNetwork: async ({ params, body }) => ({ status: 200, body: await servers.setNetwork(params.server_id, body.approved_hosts) }),
    updateToolSelection: async ({ params, body }) => ({ status: 200, body: await catalog.setToolSelection(params.server_id, body) }),
    attachSkillToServer: async ({ params }) => ({ status: 200, body: await skillTools.attach(params.server_id, params.skill_id) }),
    detachSkillFromServer: ({ params }) => skillTools.detach(params.server_id, params.skill_id).then(noContent),
  };
}
