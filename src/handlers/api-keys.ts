import type { PartialHandlerMap } from '../http/handler-types.js';
import type { Principal } from '../domain/principal.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listApiKeys' | 'createApiKey' | 'getApiKey' | 'revokeApiKey' | 'updateApiKey' | 'rotateApiKey';

/** The caller's own API keys: create, list, revoke, rotate. */
export function createApiKeysHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const keys = deps.identity.apiKeys;
  const uid = (p: Principal | null): string => p!.userId;
  return {
    listApiKeys: async (req) => {
      const page = req.query.page ?? 1;
      const pageSize = req.query.page_size ?? 20;
      const { items, total } = await keys.list(uid(req.principal), page, pageSize);
      return { status: 200, body: { items, total, page, page_size: pageSize } };
    },
    createApiKey: async (req) => ({ status: 201, body: await keys.create(uid(req.principal), req.body) }),
    getApiKey: async (req) => ({ status: 200, body: await keys.get(uid(req.principal), req.params.key_id) }),
    updateApiKey: async (req) => ({ status: 200, body: await keys.update(uid(req.principal), req.params.key_id, req.body) }),
    revokeApiKey: async (req) => {
      await keys.revoke(uid(req.principal), req.params.key_id);
      return { status: 204, body: undefined };
    },
    rotateApiKey: async (req) => {
      const body = req.body ?? {};
      const result = await keys.rotate(uid(req.principal), req.params.key_id, {
        ...(body.grace_period_seconds !== undefined ? { gracePeriodSeconds: body.grace_period_seconds } : {}),
        ...(body.name !== undefined ? { name: body.name } : {}),
      });
      return {
        status: 200,
        body: { new_key: result.newKey, old_key_revoked: result.oldKeyRevoked, grace_period_ends_at: result.gracePeriodEndsAt },
      };
    },
  };
}
