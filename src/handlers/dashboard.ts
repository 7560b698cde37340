import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'getDashboard' | 'getDashboardCharts' | 'getDashboardActivity';

/** Dashboard: statistics, health, activity feed and charts (admin or owner). */
export function createDashboardHandlers({ services: { dashboard } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getDashboard: async ({ query }) => ({ status: 200, body: await dashboard.overview(query.activity_filter) }),
    getDashboardCharts: async () => ({ status: 200, body: await dashboard.charts() }),
    getDashboardActivity: async ({ query }) => ({ status: 200, body: await dashboard.activity(query.activity_filter) }),
  };
}
