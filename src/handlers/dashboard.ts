import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'getDashboard' | 'getDashboardCharts' | 'getDashboardActivity';

/** Dashboard: statistics, health, activity feed and charts (admin or owner). */
export function createDashboardHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const dashboard = deps.dashboard;
  return {
    getDashboard: async (req) => ({ status: 200, body: await dashboard.overview(req.query.activity_filter ?? 'all') }),
    getDashboardCharts: async () => ({ status: 200, body: await dashboard.charts() }),
    getDashboardActivity: async (req) => ({ status: 200, body: await dashboard.activity(req.query.activity_filter ?? 'all') }),
  };
}
