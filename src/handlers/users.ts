import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'getCurrentUser' | 'listUsers' | 'deactivateUser' | 'updateUser' | 'getGatewaySettings' | 'updateGatewaySettings';

/** Users, roles and per-user gateway settings. */
export function createUsersHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getCurrentUser: notImplemented('getCurrentUser'),
    listUsers: notImplemented('listUsers'),
    deactivateUser: notImplemented('deactivateUser'),
    updateUser: notImplemented('updateUser'),
    getGatewaySettings: notImplemented('getGatewaySettings'),
    updateGatewaySettings: notImplemented('updateGatewaySettings'),
  };
}
