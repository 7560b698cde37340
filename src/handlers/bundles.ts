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
  | 'regenerateBundleKey'
  | 'getBundleShares'
  | 'setBundleShares';

/** Bundles: curated, ordered tool sets with per-tool overrides and a sharing key. */
export function createBundlesHandlers({ services: { bundles }, publicUrl }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listBundles: async (req) => ({ status: 200, body: await bundles.list(req.query, req.principal!) }),
    createBundle: async (req) => ({ status: 201, body: await bundles.create(req.body, req.principal!, publicUrl.of(req.headers)) }),
    getBundleByAgent: async (req) => ({ status: 200, body: await bundles.getByAgent(req.params.agent_id, req.principal!) }),
    getBundle: async (req) => ({ status: 200, body: await bundles.get(req.params.bundle_id, req.principal!) }),
    updateBundle: async (req) => ({ status: 200, body: await bundles.update(req.params.bundle_id, req.body, publicUrl.of(req.headers)) }),
    deleteBundle: ({ params }) => bundles.delete(params.bundle_id).then(noContent),
    reorderBundleTools: ({ params, body }) => bundles.reorder(params.bundle_id, body.tool_orders).then(noContent),
    addBundleTools: async ({ params, body }) => ({ status: 200, body: await bundles.addTools(params.bundle_id, body.tools) }),
    removeBundleTool: ({ params }) => bundles.removeTool(params.bundle_id, params.tool_id).then(noContent),
    updateBundleToolOverride: async ({ params, body }) => ({
      status: 200,
      body: await bundles.setOverride(params.bundle_id, params.tool_id, body),
    }),
    getBundleShares: async ({ params }) => ({ status: 200, body: await bundles.getShares(params.bundle_id) }),
    setBundleShares: async ({ params, body }) => ({ status: 200, body: await bundles.setShares(params.bundle_id, body) }),
    regenerateBundleKey: async (req) => ({
      status: 200,
      body: await bundles.regenerateKey(req.params.bundle_id, publicUrl.of(req.headers)),
    }),
  };
}
