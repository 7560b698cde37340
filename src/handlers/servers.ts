import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops =
  | 'listServers'
  | 'createServer'
  | 'getServer'
  | 'deleteServer'
  | 'updateServer'
  | 'enableServer'
  | 'disableServer'
  | 'refreshServer'
  | 'listServerTools'
  | 'listServerResources'
  | 'listServerPrompts'
  | 'updateToolSelection'
  | 'attachSkillToServer'
  | 'detachSkillFromServer';

/** Upstream MCP servers: registry, tool selection, skills attachment. */
export function createServersHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listServers: notImplemented('listServers'),
    createServer: notImplemented('createServer'),
    getServer: notImplemented('getServer'),
    deleteServer: notImplemented('deleteServer'),
    updateServer: notImplemented('updateServer'),
    enableServer: notImplemented('enableServer'),
    disableServer: notImplemented('disableServer'),
    refreshServer: notImplemented('refreshServer'),
    listServerTools: notImplemented('listServerTools'),
    listServerResources: notImplemented('listServerResources'),
    listServerPrompts: notImplemented('listServerPrompts'),
    updateToolSelection: notImplemented('updateToolSelection'),
    attachSkillToServer: notImplemented('attachSkillToServer'),
    detachSkillFromServer: notImplemented('detachSkillFromServer'),
  };
}
