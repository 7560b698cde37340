import type { PartialHandlerMap } from '../http/handler-types.js';
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

/** Base URL for endpoint addresses: TOOLGATE_PUBLIC_URL, else the address the caller used. */
function baseUrl(deps: HandlerDeps, headers: Readonly<Record<string, string | string[] | undefined>>): string {
  if (deps.config.publicUrl) return deps.config.publicUrl;
  const host = headers.host;
  return `http://${(Array.isArray(host) ? host[0] : host) ?? `${deps.config.host}:${deps.config.port}`}`;
}

/** Bundles: curated, ordered tool sets with per-tool overrides and a sharing key. */
export function createBundlesHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const bundles = deps.bundles;
  return {
    listBundles: async (req) => {
      // Defaults are applied by the validator, so page and page_size are always set here.
      const query = req.query as unknown as { page: number; page_size: number; search?: string };
      return { status: 200, body: await bundles.list(query) };
    },
    createBundle: async (req) => ({ status: 201, body: await bundles.create(req.body, req.principal!, baseUrl(deps, req.headers)) }),
    getBundleByAgent: async (req) => ({ status: 200, body: await bundles.getByAgent(req.params.agent_id) }),
    getBundle: async (req) => ({ status: 200, body: await bundles.get(req.params.bundle_id) }),
    updateBundle: async (req) => ({ status: 200, body: await bundles.update(req.params.bundle_id, req.body, baseUrl(deps, req.headers)) }),
    deleteBundle: async (req) => {
      await bundles.delete(req.params.bundle_id);
      return { status: 204, body: undefined };
    },
    reorderBundleTools: async (req) => {
      await bundles.reorder(req.params.bundle_id, req.body.tool_orders as [string, number][]);
      return { status: 204, body: undefined };
    },
    addBundleTools: async (req) => ({ status: 200, body: await bundles.addTools(req.params.bundle_id, req.body.tools) }),
    removeBundleTool: async (req) => {
      await bundles.removeTool(req.params.bundle_id, req.params.tool_id);
      return { status: 204, body: undefined };
    },
    updateBundleToolOverride: async (req) => ({
      status: 200,
      body: await bundles.setOverride(req.params.bundle_id, req.params.tool_id, req.body),
    }),
    regenerateBundleKey: async (req) => ({
      status: 200,
      body: await bundles.regenerateKey(req.params.bundle_id, baseUrl(deps, req.headers)),
    }),
  };
}
