import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listAIProviders' | 'createAIProvider' | 'deleteAIProvider' | 'updateAIProvider' | 'testAIProvider' | 'activateAIProvider';

/** AI provider configuration (LLM and embedding providers). */
export function createAiProvidersHandlers({ services: { aiProviders } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listAIProviders: async () => ({ status: 200, body: await aiProviders.list() }),
    createAIProvider: async ({ body }) => ({ status: 201, body: await aiProviders.create(body) }),
    deleteAIProvider: ({ params }) => aiProviders.delete(params.provider_id).then(noContent),
    updateAIProvider: async ({ params, body }) => ({ status: 200, body: await aiProviders.update(params.provider_id, body) }),
    testAIProvider: async ({ params, signal }) => ({ status: 200, body: await aiProviders.test(params.provider_id, signal) }),
    activateAIProvider: async ({ params }) => ({ status: 200, body: await aiProviders.activate(params.provider_id) }),
  };
}
