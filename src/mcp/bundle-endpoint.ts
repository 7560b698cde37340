import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { Config } from '../config.js';
import type { CatalogView } from '../domain/catalog.js';
import type { BundleCatchUp } from '../live/bundle-catch-up.js';
import { hashBundleKey, type BundlesRegistry, type LiveBundle } from '../live/bundles-registry.js';
import type { ToolPolicy } from '../live/tool-policy.js';
import { BundleViews } from './bundle-view.js';
import { RpcCode, SUPPORTED_VERSIONS } from './protocol.js';
import { header, sendJson } from './transport/responses.js';
import type { McpAccess, McpResolution, McpRoute } from './transport/route.js';
import type { McpTransport } from './transport/router.js';

export interface BundleEndpointDeps {
  core: McpTransport;
  registry: BundlesRegistry;
  catalog: CatalogView;
  config: Pick<Config, 'publicUrl'>;
  version: string;
  /**
   * With several instances: looks a key the registry does not know up in the database (a bundle
   * just created on another instance). Absent on a single instance, whose registry is the whole truth.
   */
  catchUp?: BundleCatchUp | undefined;
  /** The tool policy; absent: none (every bundle tool is served). */
  policy?: ToolPolicy | undefined;
}

const BUNDLE_PATH = /^\/mcp\/bundle\/([^/]+)(\/info|\/sse|\/messages)?\/?$/;
const BUNDLE_CALLER = { endpoint: 'bundle', userId: null, apiKeyId: null, oauthClientId: null } as const;

/**
 * `/mcp/bundle/{bundle_key}`: one bundle on the MCP transport (the key in the path is the
 * credential; a session is bound to the bundle and the key's hash), plus `/info`. The bundle is
 * found by key hash in memory and its compiled view is cached until the bundle or the catalog
 * changes.
 */
export class BundleEndpoint {
  readonly views: BundleViews;

  constructor(private readonly deps: BundleEndpointDeps) {
    const { core, registry, catalog } = deps;
    this.views = new BundleViews(catalog, core.toolsPageSize, core.serverInfo, deps.policy);
    const unsubscribe = [
      registry.onChange((change) => {
        deps.catchUp?.forgetMisses();
        if (change.kind === 'deleted') {
          this.views.forget(change.bundleId);
          core.sessions.endForScope(change.bundleId);
          return;
        }
        const bundle = registry.get(change.bundleId);
        if (change.keyChanged && bundle) core.sessions.endForScope(change.bundleId, bundle.keyHash);
        core.announceListChanged(new Set([change.bundleId]));
      }),
      catalog.onChange((serverIds) => {
        const affected = registry.bundlesOfServers(new Set(serverIds));
        if (affected.length) core.announceListChanged(new Set(affected.map((b) => b.id)));
      }),
    ];
    // A policy change may change any bundle's list: every bundle's open sessions are told.
    if (deps.policy) unsubscribe.push(deps.policy.onChange(() => core.announceListChanged(new Set([...registry.all()].map((b) => b.id)))));
    core.onClose(() => unsubscribe.forEach((u) => u()));
  }

  /** The Koa middleware: serves `/mcp/bundle/…`, passes everything else on. */
  middleware(): Middleware {
    return async (ctx, next) => {
      const match = BUNDLE_PATH.exec(ctx.path);
      if (!match) return next();
      let key: string;
      try {
        key = decodeURIComponent(match[1]!);
      } catch {
        key = '';
      }
      const requestId = ctx.state.requestId as string;
      if (match[2] === '/sse' || match[2] === '/messages') {
        // The HTTP+SSE transport: the messages URL repeats the key exactly as the client sent it.
        const messagesPath = `/mcp/bundle/${match[1]!}/messages`;
        return this.deps.core.serveSse(ctx, this.route(key), match[2] === '/sse' ? 'sse' : 'messages', messagesPath);
      }
      if (match[2]) {
        return this.deps.core.respond(ctx, 'bundle', async (req, res, access) => {
          access.method = 'info';
          await this.info(req, res, key, requestId);
        });
      }
      return this.deps.core.serve(ctx, this.route(key));
    };
  }

  /**
   * The route a path is served by on the fast path ahead of Koa (`/mcp/bundle/{bundle_key}`
   * itself), or undefined (`/info`, the HTTP+SSE transport's paths and everything else go through Koa).
   */
  fastRoute(path: string): McpRoute | undefined {
    const match = BUNDLE_PATH.exec(path);
    if (!match || match[2]) return undefined;
    let key: string;
    try {
      key = decodeURIComponent(match[1]!);
    } catch {
      key = '';
    }
    return this.route(key);
  }

  private route(key: string): McpRoute {
    return {
      endpoint: 'bundle',
      resolve: (_req, access) => this.resolve(key, access),
      methodNotAllowed: (res, requestId, allow = 'GET, POST, DELETE') =>
        sendErrorResponse(res, 405, 'method_not_allowed', 'Method not allowed on this path', { allow }, requestId),
    };
  }

  private resolve(key: string, access: McpAccess): McpResolution | Promise<McpResolution> {
    const found = this.find(key);
    return found instanceof Promise ? found.then((bundle) => this.resolution(bundle, access)) : this.resolution(found, access);
  }

  private resolution(bundle: LiveBundle | undefined, access: McpAccess): McpResolution {
    if (!bundle) return { refusal: { status: 404, code: RpcCode.SessionNotFound, message: 'Bundle not found' } };
    access.bundle = bundle.id;
    return {
      target: {
        scope: bundle.id,
        credential: bundle.keyHash,
        caller: bundle.createdBy ? { ...BUNDLE_CALLER, actingUserId: bundle.createdBy } : BUNDLE_CALLER,
        view: () => this.views.served(bundle),
      },
    };
  }

  /** The bundle a key opens: from memory, or (several instances, a key not known here yet) a database read. */
  private find(key: string): LiveBundle | undefined | Promise<LiveBundle | undefined> {
    if (key.length < 1 || key.length > 255) return undefined;
    const keyHash = hashBundleKey(key);
    return this.deps.registry.byKeyHash(keyHash) ?? this.deps.catchUp?.lookup(keyHash);
  }

  /** `GET /mcp/bundle/{bundle_key}/info`: plain JSON about the bundle behind a key. */
  private async info(req: IncomingMessage, res: ServerResponse, key: string, requestId: string): Promise<void> {
    if (req.method !== 'GET') {
      sendErrorResponse(res, 405, 'method_not_allowed', 'Method not allowed on this path', { allow: 'GET' }, requestId);
      return;
    }
    const bundle = await this.find(key);
    if (!bundle) {
      sendErrorResponse(res, 404, 'not_found', 'Unknown bundle key', {}, requestId);
      return;
    }
    const base = this.deps.config.publicUrl ?? `http://${header(req, 'host') ?? 'localhost'}`;
    const body = {
      name: bundle.name,
      description: bundle.description,
      tool_count: this.views.of(bundle).tools.length,
      endpoint: `${base.replace(/\/+$/, '')}/mcp/bundle/${encodeURIComponent(key)}`,
      protocol_versions: SUPPORTED_VERSIONS,
      server_version: this.deps.version,
    };
    sendJson(res, 200, JSON.stringify(body));
  }
}

/** An ErrorResponse (the REST error shape) for the bundle route's non-JSON-RPC answers. */
function sendErrorResponse(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string>,
  requestId: string,
): void {
  sendJson(res, status, JSON.stringify({ detail, code, request_id: requestId }), headers);
}
