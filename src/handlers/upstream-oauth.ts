import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  | 'listMyUpstreamConnections'
  | 'revokeMyUpstreamConnection'
  | 'startUpstreamConnection'
  | 'listServerConnections'
  | 'upstreamOAuthCallback'
  | 'getUpstreamClientMetadata';

/** Upstream servers behind OAuth: each user's connections, Connect and its callback, the admins' view, the CIMD document. */
export function createUpstreamOAuthHandlers({
  services: { upstreamConnections: connections, rateLimiter },
}: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listMyUpstreamConnections: async (req) => ({ status: 200, body: await connections.listMine(req.principal!) }),
    revokeMyUpstreamConnection: (req) => connections.revokeMine(req.principal!, req.params.server_id).then(noContent),
    startUpstreamConnection: async (req) => ({ status: 200, body: await connections.start(req.principal!, req.params.server_id) }),
    listServerConnections: async ({ params }) => ({ status: 200, body: await connections.listOfServer(params.server_id) }),
    upstreamOAuthCallback: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      return { status: 302, body: undefined, headers: { Location: await connections.callback(req.query) } };
    },
    getUpstreamClientMetadata: async (req) => {
      await rateLimiter.checkAddress(req.ip);
      return { status: 200, body: connections.clientMetadata() };
    },
  };
}
