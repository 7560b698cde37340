import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'listAIProviders' | 'createAIProvider' | 'deleteAIProvider' | 'updateAIProvider' | 'testAIProvider' | 'activateAIProvider';

/** AI provider configuration (LLM and embedding providers). */
export function createAiProvidersHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listAIProviders: notImplemented('listAIProviders'),
    createAIProvider: notImplemented('createAIProvider'),
    deleteAIProvider: notImplemented('deleteAIProvider'),
    updateAIProvider: notImplemented('updateAIProvider'),
    testAIProvider: notImplemented('testAIProvider'),
    activateAIProvider: notImplemented('activateAIProvider'),
  };
}
