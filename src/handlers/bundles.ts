import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

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
export function createBundlesHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listBundles: notImplemented('listBundles'),
    createBundle: notImplemented('createBundle'),
    getBundleByAgent: notImplemented('getBundleByAgent'),
    getBundle: notImplemented('getBundle'),
    updateBundle: notImplemented('updateBundle'),
    deleteBundle: notImplemented('deleteBundle'),
    reorderBundleTools: notImplemented('reorderBundleTools'),
    addBundleTools: notImplemented('addBundleTools'),
    removeBundleTool: notImplemented('removeBundleTool'),
    updateBundleToolOverride: notImplemented('updateBundleToolOverride'),
    regenerateBundleKey: notImplemented('regenerateBundleKey'),
  };
}
