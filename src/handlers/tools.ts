import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'listTools';

/** The cross-server tool catalog. */
export function createToolsHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listTools: notImplemented('listTools'),
  };
}
