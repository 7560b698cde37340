import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'exportConfig' | 'importConfig';

/** Configuration as code: export the configuration as YAML, apply a document. */
export function createConfigHandlers({ services: { configDocuments }, publicUrl }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    exportConfig: async (req) => ({ status: 200, body: await configDocuments.export(publicUrl.of(req.headers), req.query.secrets) }),
    importConfig: async (req) => ({
      status: 200,
      body: await configDocuments.import(req.body.document, { dryRun: req.body.dry_run, userId: req.principal!.userId }),
    }),
  };
}
