import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops = 'getDashboard' | 'getDashboardCharts' | 'getDashboardActivity';

/** Dashboard: statistics, health, activity feed and charts (admin or owner). */
export function createDashboardHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    getDashboard: notImplemented('getDashboard'),
    getDashboardCharts: notImplemented('getDashboardCharts'),
    getDashboardActivity: notImplemented('getDashboardActivity'),
  };
}
