import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listInvitations' | 'createInvitation' | 'revokeInvitation' | 'getInvitationAcceptInfo';

/** Invitations: create, list, revoke, and the public accept information (rate-limited per address). */
export function createInvitationsHandlers({ services: { invitations, rateLimiter }, publicUrl }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listInvitations: async ({ query }) => ({ status: 200, body: await invitations.list(query) }),
    createInvitation: async (req) => ({ status: 201, body: await invitations.create(req.principal!, req.body, publicUrl.of(req.headers)) }),
    revokeInvitation: ({ params }) => invitations.revoke(params.invitation_id).then(noContent),
    getInvitationAcceptInfo: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      return { status: 200, body: await invitations.acceptInfo(req.params.token) };
    },
  };
}
