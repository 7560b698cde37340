import type { components } from '../generated/openapi.js';
import type { PartialHandlerMap } from '../http/handler-types.js';
import type { ServersService } from '../services/servers-service.js';
import type { DbPromptRow, DbResourceRow, DbToolRow } from '../stores/catalog-store.js';
import type { DbServerRow } from '../stores/servers-store.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  | 'listServers'
  | 'createServer'
  | 'getServer'
  | 'deleteServer'
  | 'updateServer'
  | 'enableServer'
  | 'disableServer'
  | 'refreshServer'
  | 'listServerTools'
  | 'listServerResources'
  | 'listServerPrompts'
  | 'updateToolSelection'
  | 'attachSkillToServer'
  | 'detachSkillFromServer';

type Schemas = components['schemas'];

/** The wire form of a server: secrets never, only their names. */
export function serverToApi(row: DbServerRow, servers: ServersService): Schemas['MCPServer'] {
  const s = servers.status(row);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    transport: row.transport,
    command: row.command,
    args: row.args,
    env: row.env,
    secret_env_keys: row.secret_env_keys,
    cwd: row.cwd,
    url: row.url,
    header_names: row.header_names,
    enabled: row.enabled,
    status: s.status,
    last_error: s.lastError,
    last_connected_at: s.lastConnectedAt?.toISOString() ?? null,
    protocol_version: s.protocolVersion,
    server_info: s.serverInfo && typeof s.serverInfo.name === 'string' ? (s.serverInfo as Schemas['ServerInfo']) : null,
    tool_count: s.toolCount,
    resource_count: s.resourceCount,
    prompt_count: s.promptCount,
    latency_ms: s.latencyMs,
    call_timeout_ms: row.call_timeout_ms,
    health_check_interval_seconds: row.health_check_interval_seconds,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The wire form of a catalog tool; `available` also needs the server to be connected now. */
export function toolToApi(row: DbToolRow & { server_name: string }, servers: ServersService): Schemas['CatalogTool'] {
  return {
    id: row.id,
    server_id: row.server_id,
    server_name: row.server_name,
    name: row.name,
    title: row.title,
    description: row.description,
    input_schema: row.input_schema,
    output_schema: row.output_schema,
    annotations: row.annotations,
    enabled: row.enabled,
    available: row.available && (row.skill_attachment_id ? servers.isEnabled(row.server_id) : servers.isConnected(row.server_id)),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function resourceToApi(row: DbResourceRow): Schemas['CatalogResource'] {
  return {
    id: row.id,
    server_id: row.server_id,
    uri: row.uri,
    name: row.name,
    title: row.title,
    description: row.description,
    mime_type: row.mime_type,
    size: row.size,
    is_template: row.is_template,
    annotations: row.annotations,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function promptToApi(row: DbPromptRow): Schemas['CatalogPrompt'] {
  return {
    id: row.id,
    server_id: row.server_id,
    name: row.name,
    title: row.title,
    description: row.description,
    arguments: row.arguments.map((a) => ({ name: a.name, description: a.description ?? null, required: a.required ?? false })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Upstream MCP servers: registry, tool selection, skills attachment. */
export function createServersHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const { servers } = deps;
  const page = (q: { page?: number; page_size?: number }) => ({ page: q.page ?? 1, pageSize: q.page_size ?? 20 });
  return {
    listServers: async ({ query }) => {
      const { page: p, pageSize } = page(query);
      const { rows, total } = await servers.list({
        page: p,
        pageSize,
        ...(query.search ? { search: query.search } : {}),
        ...(query.status ? { status: query.status } : {}),
      });
      return { status: 200, body: { items: rows.map((r) => serverToApi(r, servers)), total, page: p, page_size: pageSize } };
    },
    createServer: async ({ body }) => {
      const row = await servers.create(body);
      return { status: 201, body: serverToApi(row, servers) };
    },
    getServer: async ({ params }) => ({ status: 200, body: serverToApi(await servers.get(params.server_id), servers) }),
    deleteServer: async ({ params }) => {
      await servers.delete(params.server_id);
      return { status: 204, body: undefined };
    },
    updateServer: async ({ params, body }) => ({
      status: 200,
      body: serverToApi(await servers.update(params.server_id, body), servers),
    }),
    enableServer: async ({ params }) => ({ status: 200, body: serverToApi(await servers.setEnabled(params.server_id, true), servers) }),
    disableServer: async ({ params }) => ({ status: 200, body: serverToApi(await servers.setEnabled(params.server_id, false), servers) }),
    refreshServer: async ({ params }) => ({ status: 200, body: serverToApi(await servers.refresh(params.server_id), servers) }),
    listServerTools: async ({ params, query }) => {
      await servers.get(params.server_id);
      const { page: p, pageSize } = page(query);
      const { rows, total } = await servers.listTools({
        page: p,
        pageSize,
        serverId: params.server_id,
        ...(query.search ? { search: query.search } : {}),
      });
      return { status: 200, body: { items: rows.map((r) => toolToApi(r, servers)), total, page: p, page_size: pageSize } };
    },
    listServerResources: async ({ params, query }) => {
      const { page: p, pageSize } = page(query);
      const { rows, total } = await servers.listResources(params.server_id, {
        page: p,
        pageSize,
        ...(query.search ? { search: query.search } : {}),
      });
      return { status: 200, body: { items: rows.map(resourceToApi), total, page: p, page_size: pageSize } };
    },
    listServerPrompts: async ({ params, query }) => {
      const { page: p, pageSize } = page(query);
      const { rows, total } = await servers.listPrompts(params.server_id, {
        page: p,
        pageSize,
        ...(query.search ? { search: query.search } : {}),
      });
      return { status: 200, body: { items: rows.map(promptToApi), total, page: p, page_size: pageSize } };
    },
    updateToolSelection: async ({ params, body }) => ({
      status: 200,
      body: { updated: await servers.setToolSelection(params.server_id, body.tool_ids, body.enabled) },
    }),
    attachSkillToServer: async ({ params }) => ({ status: 200, body: await deps.skillTools.attach(params.server_id, params.skill_id) }),
    detachSkillFromServer: async ({ params }) => {
      await deps.skillTools.detach(params.server_id, params.skill_id);
      return { status: 204, body: undefined };
    },
  };
}
