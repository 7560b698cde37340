import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'listLoginProviders' | 'startOAuthLogin' | 'oauthCallback' | 'logout';

/** OAuth login, callback and logout. */
export function createAuthHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listLoginProviders: notImplemented('listLoginProviders'),
    startOAuthLogin: notImplemented('startOAuthLogin'),
    oauthCallback: notImplemented('oauthCallback'),
    logout: notImplemented('logout'),
  };
}
