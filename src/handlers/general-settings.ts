import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'getGeneralSettings' | 'updateGeneralSettings' | 'resetGeneralSettings';

/** General settings (log retention and others) and their reset. */
export function createGeneralSettingsHandlers({ services: { generalSettings } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getGeneralSettings: async () => ({ status: 200, body: await generalSettings.get() }),
    updateGeneralSettings: async ({ body }) => ({ status: 200, body: await generalSettings.update(body) }),
    resetGeneralSettings: async () => ({ status: 200, body: await generalSettings.reset() }),
  };
}
