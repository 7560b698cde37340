import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  | 'getOAuthAuthorization'
  | 'decideOAuthAuthorization'
  | 'listMyOAuthGrants'
  | 'revokeMyOAuthGrant'
  | 'listOAuthGrants'
  | 'revokeOAuthGrant'
  | 'listOAuthClients'
  | 'createOAuthClient'
  | 'deleteOAuthClient'
  | 'approveOAuthClient';

/** The MCP authorization server's REST side: consent, connected apps, registered clients. */
export function createOAuthHandlers({
  services: { oauthServer: oauth, connectedApps: apps },
  publicUrl,
}: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getOAuthAuthorization: async (req) => ({
      status: 200,
      body: await oauth.describe(publicUrl.of(req.headers), req.params.authorization_id, req.principal!),
    }),
    decideOAuthAuthorization: async (req) => ({
      status: 200,
      body: await oauth.decide(publicUrl.of(req.headers), req.params.authorization_id, req.principal!, req.body.approve),
    }),
    listMyOAuthGrants: async (req) => ({ status: 200, body: await apps.listGrants(req.principal!.userId) }),
    revokeMyOAuthGrant: (req) => apps.revokeGrant(req.params.grant_id, req.principal!.userId).then(noContent),
    listOAuthGrants: async (req) => ({ status: 200, body: await apps.listGrants(req.query.user_id) }),
    revokeOAuthGrant: (req) => apps.revokeGrant(req.params.grant_id).then(noContent),
    listOAuthClients: async () => ({ status: 200, body: await apps.listClients() }),
    createOAuthClient: async (req) => ({ status: 201, body: await apps.createClient(req.body, req.principal!) }),
    deleteOAuthClient: (req) => apps.deleteClient(req.params.client_id).then(noContent),
    approveOAuthClient: async (req) => ({ status: 200, body: await apps.approveClient(req.params.client_id) }),
  };
}
