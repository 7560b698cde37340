import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Metrics } from '../lib/metrics.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * `GET /metrics` for a Prometheus scraper holding `TOOLGATE_METRICS_TOKEN` (as a Bearer token):
 * answered here, ahead of the REST dispatcher, without touching the database or a rate limit.
 * Every other request to `/metrics` (an admin's API key or session, a wrong token, no token) goes
 * on to the REST operation `getMetrics`, which authenticates like any admin operation. With no
 * token configured this route does nothing.
 */
export function metricsTokenRoute(options: { token: string | undefined; metrics: Metrics }): Middleware {
  const expected = options.token === undefined ? undefined : digest(options.token);
  return async (ctx, next) => {
    if (!expected || ctx.path !== '/metrics' || ctx.method !== 'GET') return next();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    // Compared as digests: constant time, whatever the presented length.
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) return next();
    ctx.state.route = 'getMetrics';
    ctx.set('Content-Type', options.metrics.contentType);
    ctx.body = await options.metrics.render();
  };
}
