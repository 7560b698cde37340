import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listApiKeys' | 'createApiKey' | 'getApiKey' | 'revokeApiKey' | 'updateApiKey' | 'rotateApiKey';

/** The caller's own API keys: create, list, revoke, rotate (the caller is always authenticated here). */
export function createApiKeysHandlers({ services: { apiKeys: keys } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listApiKeys: async (req) => ({ status: 200, body: await keys.list(req.principal!.userId, req.query) }),
    createApiKey: async (req) => ({ status: 201, body: await keys.create(req.principal!.userId, req.body) }),
    getApiKey: async (req) => ({ status: 200, body: await keys.get(req.principal!.userId, req.params.key_id) }),
    updateApiKey: async (req) => ({ status: 200, body: await keys.update(req.principal!.userId, req.params.key_id, req.body) }),
    revokeApiKey: (req) => keys.revoke(req.principal!.userId, req.params.key_id).then(noContent),
    rotateApiKey: async (req) => ({ status: 200, body: await keys.rotate(req.principal!.userId, req.params.key_id, req.body ?? {}) }),
  };
}
