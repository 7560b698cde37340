import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops =
  'getAuthSettings' | 'updateAuthSettings' | 'listOAuthProviders' | 'createOAuthProvider' | 'deleteOAuthProvider' | 'updateOAuthProvider';

/** Authentication settings and OAuth provider configuration (admin or owner). */
export function createAuthSettingsHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getAuthSettings: notImplemented('getAuthSettings'),
    updateAuthSettings: notImplemented('updateAuthSettings'),
    listOAuthProviders: notImplemented('listOAuthProviders'),
    createOAuthProvider: notImplemented('createOAuthProvider'),
    deleteOAuthProvider: notImplemented('deleteOAuthProvider'),
    updateOAuthProvider: notImplemented('updateOAuthProvider'),
  };
}
