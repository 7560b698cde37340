import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'listGenerationJobs' | 'createGenerationJob' | 'getGenerationJob' | 'cancelGenerationJob';

/** AI generation of MCP servers (asynchronous jobs). */
export function createGenerationHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listGenerationJobs: notImplemented('listGenerationJobs'),
    createGenerationJob: notImplemented('createGenerationJob'),
    getGenerationJob: notImplemented('getGenerationJob'),
    cancelGenerationJob: notImplemented('cancelGenerationJob'),
  };
}
