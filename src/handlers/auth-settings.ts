import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  'getAuthSettings' | 'updateAuthSettings' | 'listOAuthProviders' | 'createOAuthProvider' | 'deleteOAuthProvider' | 'updateOAuthProvider';

function settingsView(s: Awaited<ReturnType<HandlerDeps['identity']['authSettings']['get']>>) {
  return {
    allowed_domains: s.allowed_domains,
    admin_emails: s.admin_emails,
    access_token_expire_minutes: s.access_token_expire_minutes,
    api_key_max_lifetime_days: s.api_key_max_lifetime_days,
    updated_at: s.updated_at?.toISOString() ?? null,
  };
}

/** Authentication settings and OAuth provider configuration (admin or owner). */
export function createAuthSettingsHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const { authSettings, oauthProviders } = deps.identity;
  return {
    getAuthSettings: async () => ({ status: 200, body: settingsView(await authSettings.get()) }),
    updateAuthSettings: async (req) => ({ status: 200, body: settingsView(await authSettings.update(req.body)) }),
    listOAuthProviders: async () => {
      const items = await oauthProviders.list();
      return { status: 200, body: { items, total: items.length } };
    },
    createOAuthProvider: async (req) => ({ status: 201, body: await oauthProviders.create(req.body) }),
    updateOAuthProvider: async (req) => ({ status: 200, body: await oauthProviders.update(req.params.provider_type, req.body) }),
    deleteOAuthProvider: async (req) => {
      await oauthProviders.delete(req.params.provider_type);
      return { status: 204, body: undefined };
    },
  };
}
