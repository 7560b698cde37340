import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'getCurrentUser' | 'listUsers' | 'createUser' | 'deactivateUser' | 'updateUser' | 'getGatewaySettings' | 'updateGatewaySettings';

/** Users, roles and per-user gateway settings (the caller is always authenticated here). */
export function createUsersHandlers({ services: { users, gatewaySettings } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getCurrentUser: async (req) => ({ status: 200, body: await users.me(req.principal!.userId) }),
    listUsers: async ({ query }) => ({ status: 200, body: await users.list(query) }),
    createUser: async (req) => ({ status: 201, body: await users.create(req.principal!, req.body) }),
    updateUser: async (req) => ({ status: 200, body: await users.update(req.principal!, req.params.user_id, req.body) }),
    deactivateUser: (req) => users.deactivate(req.principal!, req.params.user_id).then(noContent),
    getGatewaySettings: async (req) => ({ status: 200, body: await gatewaySettings.get(req.principal!.userId) }),
    updateGatewaySettings: async (req) => ({ status: 200, body: await gatewaySettings.update(req.principal!, req.body) }),
  };
}
