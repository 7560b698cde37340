import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'listInvitations' | 'createInvitation' | 'revokeInvitation' | 'getInvitationAcceptInfo';

/** Invitations: create, list, revoke, and the public accept information. */
export function createInvitationsHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listInvitations: notImplemented('listInvitations'),
    createInvitation: notImplemented('createInvitation'),
    revokeInvitation: notImplemented('revokeInvitation'),
    getInvitationAcceptInfo: notImplemented('getInvitationAcceptInfo'),
  };
}
