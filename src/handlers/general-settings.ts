import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'getGeneralSettings' | 'updateGeneralSettings' | 'resetGeneralSettings';

/** General settings (log retention and others) and their reset. */
export function createGeneralSettingsHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getGeneralSettings: notImplemented('getGeneralSettings'),
    updateGeneralSettings: notImplemented('updateGeneralSettings'),
    resetGeneralSettings: notImplemented('resetGeneralSettings'),
  };
}
