import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listRegistryServers' | 'listRegistryServerVersions' | 'getRegistryServerVersion';

/** The MCP Registry API v0.1: the caller's bundles as `server.json` entries. */
export function createRegistryHandlers({ services: { registryApi }, publicUrl }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listRegistryServers: async (req) => ({
      status: 200,
      body: await registryApi.list(req.principal!, publicUrl.of(req.headers), req.query),
    }),
    listRegistryServerVersions: async (req) => ({
      status: 200,
      body: await registryApi.versions(req.principal!, publicUrl.of(req.headers), req.params.server_name),
    }),
    getRegistryServerVersion: async (req) => ({
      status: 200,
      body: await registryApi.version(req.principal!, publicUrl.of(req.headers), req.params.server_name, req.params.version),
    }),
  };
}
