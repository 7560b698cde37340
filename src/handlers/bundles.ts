import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  | 'listBundles'
  | 'createBundle'
  | 'getBundleByAgent'
  | 'getBundle'
  | 'updateBundle'
  | 'deleteBundle'
  | 'reorderBundleTools'
  | 'addBundleTools'
  | 'removeBundleTool'
  | 'updateBundleToolOverride'
  | 'regenerateBundleKey';

/** Bundles: curated, ordered tool sets with per-tool overrides and a sharing key. */
export function createBundlesHandlers({ services: { bundles }, publicUrl }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listBundles: async ({ query }) => ({ status: 200, body: await bundles.list(query) }),
    createBundle: async (req) => ({ status: 201, body: await bundles.create(req.body, req.principal!, publicUrl.of(req.headers)) }),
    getBundleByAgent: async ({ params }) => ({ status: 200, body: await bundles.getByAgent(params.agent_id) }),
    getBundle: async ({ params }) => ({ status: 200, body: await bundles.get(params.bundle_id) }),
    updateBundle: async (req) => ({ status: 200, body: await bundles.update(req.params.bundle_id, req.body, publicUrl.of(req.headers)) }),
    deleteBundle: ({ params }) => bundles.delete(params.bundle_id).then(noContent),
    reorderBundleTools: ({ params, body }) => bundles.reorder(params.bundle_id, body.tool_orders).then(noContent),
    addBundleTools: async ({ params, body }) => ({ status: 200, body: await bundles.addTools(params.bundle_id, body.tools) }),
    removeBundleTool: ({ params }) => bundles.removeTool(params.bundle_id, params.tool_id).then(noContent),
    updateBundleToolOverride: async ({ params, body }) => ({
      status: 200,
      body: await bundles.setOverride(params.bundle_id, params.tool_id, body),
    }),
    regenerateBundleKey: async (req) => ({
      status: 200,
      body: await bundles.regenerateKey(req.params.bundle_id, publicUrl.of(req.headers)),
    }),
  };
}
