import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'getGeneralSettings' | 'updateGeneralSettings' | 'resetGeneralSettings';

/** General settings (log retention and others) and their reset. */
export function createGeneralSettingsHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const settings = deps.generalSettings;
  return {
    getGeneralSettings: async () => ({ status: 200, body: await settings.get() }),
    updateGeneralSettings: async (req) => ({ status: 200, body: await settings.update(req.body) }),
    resetGeneralSettings: async () => ({ status: 200, body: await settings.reset() }),
  };
}
