import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  'getAuthSettings' | 'updateAuthSettings' | 'listOAuthProviders' | 'createOAuthProvider' | 'deleteOAuthProvider' | 'updateOAuthProvider';

/** Authentication settings and OAuth provider configuration (admin or owner). */
export function createAuthSettingsHandlers({ services: { authSettings, oauthProviders } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getAuthSettings: async () => ({ status: 200, body: await authSettings.view() }),
    updateAuthSettings: async ({ body }) => ({ status: 200, body: await authSettings.update(body) }),
    listOAuthProviders: async () => ({ status: 200, body: await oauthProviders.list() }),
    createOAuthProvider: async ({ body }) => ({ status: 201, body: await oauthProviders.create(body) }),
    updateOAuthProvider: async ({ params, body }) => ({ status: 200, body: await oauthProviders.update(params.provider_type, body) }),
    deleteOAuthProvider: ({ params }) => oauthProviders.delete(params.provider_type).then(noContent),
  };
}
