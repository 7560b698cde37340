import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  | 'getGuardrailSettings'
  | 'updateGuardrailSettings'
  | 'getBundleGuardrails'
  | 'setBundleGuardrails'
  | 'listInterceptors'
  | 'createInterceptor'
  | 'getInterceptor'
  | 'updateInterceptor'
  | 'deleteInterceptor';

/** Guardrails: redaction settings (installation and bundles) and webhook interceptors. */
export function createGuardrailsHandlers({ services: { guardrails } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getGuardrailSettings: async () => ({ status: 200, body: await guardrails.getSettings() }),
    updateGuardrailSettings: async ({ body }) => ({ status: 200, body: await guardrails.updateSettings(body) }),
    getBundleGuardrails: async ({ params }) => ({ status: 200, body: await guardrails.getBundle(params.bundle_id) }),
    setBundleGuardrails: async ({ params, body }) => ({ status: 200, body: await guardrails.setBundle(params.bundle_id, body) }),
    listInterceptors: async () => ({ status: 200, body: await guardrails.listInterceptors() }),
    createInterceptor: async ({ body }) => ({ status: 201, body: await guardrails.createInterceptor(body) }),
    getInterceptor: async ({ params }) => ({ status: 200, body: await guardrails.getInterceptor(params.interceptor_id) }),
    updateInterceptor: async ({ params, body }) => ({ status: 200, body: await guardrails.updateInterceptor(params.interceptor_id, body) }),
    deleteInterceptor: ({ params }) => guardrails.deleteInterceptor(params.interceptor_id).then(noContent),
  };
}
