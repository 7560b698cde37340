import { ForbiddenError } from '../errors.js';
import type { Principal } from './principal.js';

/**
 * The API key scope an operation needs: reads under /api/v1, the Registry API (`/v0.1/`) and
 * `/metrics` need `api:read`, changes `api:write`, the gateway `mcp`.
 */
export function requiredScope(method: string, path: string): 'api:read' | 'api:write' | 'mcp' | null {
  if (path.startsWith('/mcp/gateway')) return 'mcp';
  if (path === '/metrics' || path.startsWith('/v0.1/')) return 'api:read';
  if (!path.startsWith('/api/v1/')) return null;
  return method.toLowerCase() === 'get' ? 'api:read' : 'api:write';
}

/**
 * Refuses (403) an API key that lacks the scope an operation needs. Session (cookie) callers are
 * not narrowed by scopes: their role alone decides. An OAuth token carries only `mcp`.
 */
export function checkScope(principal: Principal, operation: { method: string; path: string }): void {
  if (principal.via === 'cookie') return;
  const scope = requiredScope(operation.method, operation.path);
  if (scope && !principal.scopes.includes(scope)) {
    throw new ForbiddenError(`This API key lacks the ${scope} scope this operation needs`, 'insufficient_scope');
  }
}
