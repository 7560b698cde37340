import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { publicBaseUrl } from './request-url.js';

type Ops = 'listInvitations' | 'createInvitation' | 'revokeInvitation' | 'getInvitationAcceptInfo';

/** Invitations: create, list, revoke, and the public accept information. */
export function createInvitationsHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const { invitations, rateLimiter } = deps.identity;
  return {
    listInvitations: async (req) => {
      const page = req.query.page ?? 1;
      const pageSize = req.query.page_size ?? 20;
      const { items, total } = await invitations.list(page, pageSize, req.query.status);
      return { status: 200, body: { items, total, page, page_size: pageSize } };
    },
    createInvitation: async (req) => ({
      status: 201,
      body: await invitations.create(req.principal!, req.body, publicBaseUrl(deps.config, req.headers)),
    }),
    revokeInvitation: async (req) => {
      await invitations.revoke(req.params.invitation_id);
      return { status: 204, body: undefined };
    },
    getInvitationAcceptInfo: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      return { status: 200, body: await invitations.acceptInfo(req.params.token) };
    },
  };
}
