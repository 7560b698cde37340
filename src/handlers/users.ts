import type { PartialHandlerMap } from '../http/handler-types.js';
import type { Principal } from '../domain/principal.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'getCurrentUser' | 'listUsers' | 'deactivateUser' | 'updateUser' | 'getGatewaySettings' | 'updateGatewaySettings';

/** Users, roles and per-user gateway settings. */
export function createUsersHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const { users, gatewaySettings } = deps.identity;
  const me = (p: Principal | null): Principal => p!;
  return {
    getCurrentUser: async (req) => ({ status: 200, body: await users.me(me(req.principal).userId) }),
    listUsers: async (req) => {
      const page = req.query.page ?? 1;
      const pageSize = req.query.page_size ?? 20;
      const { items, total } = await users.list(page, pageSize, req.query.search);
      return { status: 200, body: { items, total, page, page_size: pageSize } };
    },
    updateUser: async (req) => ({ status: 200, body: await users.update(me(req.principal), req.params.user_id, req.body) }),
    deactivateUser: async (req) => {
      await users.deactivate(me(req.principal), req.params.user_id);
      return { status: 204, body: undefined };
    },
    getGatewaySettings: async (req) => ({ status: 200, body: await gatewaySettings.get(me(req.principal).userId) }),
    updateGatewaySettings: async (req) => ({ status: 200, body: await gatewaySettings.update(me(req.principal).userId, req.body) }),
  };
}
