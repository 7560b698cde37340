import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

/** `GET /metrics`: the process's Prometheus metrics, for admins and owners (scrapers may use the metrics token instead). */
export function createMetricsHandlers(deps: HandlerDeps): PartialHandlerMap<'getMetrics'> {
  return {
    getMetrics: async () => ({
      status: 200,
      body: await deps.services.metrics.render(),
      headers: { 'Content-Type': deps.services.metrics.contentType },
    }),
  };
}
