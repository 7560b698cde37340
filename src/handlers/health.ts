import { ServiceUnavailableError } from '../errors.js';
import type { PartialHandlerMap } from '../http/handler-types.js';
import { isConnectionError } from '../lib/database-errors.js';
import type { HandlerDeps } from './deps.js';

/** Why the database check failed, in words safe to show anyone (no addresses, no credentials). */
function readinessReason(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (/no answer within/.test(message) || (err as { name?: string }).name === 'KnexTimeoutError') return 'database did not answer in time';
  if (isConnectionError(err)) return 'database unreachable';
  return 'database check failed';
}

/**
 * Liveness and readiness probes for load balancers and orchestrators. /health never touches the
 * database (it reports the last check); /ready checks it.
 */
export function createHealthHandlers(deps: HandlerDeps): PartialHandlerMap<'getHealth' | 'getReady'> {
  return {
    getHealth: async () => ({
      status: 200,
      body: {
        status: deps.services.db.lastPingOk ? 'ok' : 'degraded',
        version: deps.version,
        uptime_seconds: String(Math.floor((Date.now() - deps.startedAt.getTime()) / 1000)),
        database: deps.services.db.lastPingOk ? 'ok' : 'unreachable',
        database_engine: deps.services.db.kind,
      },
    }),
    getReady: async () => {
      try {
        await deps.services.db.ping(2000);
      } catch (err) {
        deps.logger.warn({ reason: readinessReason(err) }, 'readiness check failed');
        throw new ServiceUnavailableError(`Not ready: ${readinessReason(err)}`, 5, 'not_ready');
      }
      // The database answers, but refuses writes for lack of room: the call records pile up in memory.
      const records = deps.services.callRecorder.health();
      if (!records.ok && records.reason !== 'database unreachable') {
        deps.logger.warn({ reason: records.reason, pending: records.pending }, 'readiness check failed');
        throw new ServiceUnavailableError(`Not ready: call records cannot be written (${records.reason})`, 5, 'not_ready');
      }
      return { status: 200, body: { status: 'ready', database: 'ok' } };
    },
  };
}
