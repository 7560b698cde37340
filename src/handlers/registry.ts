import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listRegistryServers' | 'listRegistryServerVersions' | 'getRegistryServerVersion' | 'browseRegistry' | 'importRegistryServer';

/** The MCP Registry API v0.1 (the caller's bundles as `server.json` entries), and adding servers from a registry. */
export function createRegistryHandlers({ services: { registryApi, registryImport }, publicUrl }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    browseRegistry: async ({ query }) => ({ status: 200, body: await registryImport.browse(query) }),
    importRegistryServer: async ({ body }) => ({ status: 201, body: await registryImport.import(body) }),
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
