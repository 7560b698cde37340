import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'listApiKeys' | 'createApiKey' | 'getApiKey' | 'revokeApiKey' | 'updateApiKey' | 'rotateApiKey';

/** The caller's own API keys: create, list, revoke, rotate. */
export function createApiKeysHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listApiKeys: notImplemented('listApiKeys'),
    createApiKey: notImplemented('createApiKey'),
    getApiKey: notImplemented('getApiKey'),
    revokeApiKey: notImplemented('revokeApiKey'),
    updateApiKey: notImplemented('updateApiKey'),
    rotateApiKey: notImplemented('rotateApiKey'),
  };
}
