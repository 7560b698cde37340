import type { LiveBundle } from '../live/bundles-registry.js';
import { effectiveName, effectiveTool } from '../domain/bundle-tools.js';
import type { CatalogView } from '../domain/catalog.js';
import { featureMask } from '../domain/client-features.js';
import { META_SERVER_INFO, RawResult, RpcCode, rpcError, type Era } from './protocol.js';
import type { McpView } from './context.js';
import type { DeniedTool, OfferedTool, UnavailableReason, UnavailableTool } from './view.js';
import type { ToolGate, ToolPolicy } from '../live/tool-policy.js';
import { gateOffered, gateUnavailable, isDenied } from './policy-gate.js';

export type { OfferedTool, UnavailableReason, UnavailableTool } from './view.js';

/** How long a 2026-07-28 client may reuse a list (ms); changes are announced on stateful sessions' streams only. */
export const LIST_TTL_MS = 10_000;

/** Drops null members (MCP objects omit absent optional fields). */
export function compact(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/**
 * A bundle compiled against one catalog version: the offered tools in display order, a name
 * index for `tools/call`, and the `tools/list` pages serialised once per era and reused until the
 * bundle or the catalog changes.
 */
export class BundleView implements McpView {
  readonly tools: OfferedTool[] = [];
  readonly byName = new Map<string, OfferedTool>();
  /**
   * The bundle's enabled tools that cannot be called now, by the name clients know, so that a
   * call says why instead of "Unknown tool". A name an offered tool holds is never here.
   */
  readonly unavailable = new Map<string, UnavailableTool>();
  /** Tools the policy denies to this view's callers (empty without a gate). */
  readonly denied = new Map<string, DeniedTool>();
  /** The bundle's servers, in the order of their first tool. */
  readonly serverIds: string[] = [];
  readonly title: string;
  readonly instructions: string | null;
  /** What the offered tools need callers to have declared (mask; see McpView). */
  readonly needs: number = 0;
  private pages = new Map<string, RawResult>();
  /** This view as callers lacking some of `needs` see it, by the features they have (of `needs`). */
  private readonly narrowed = new Map<number, BundleView>();

  constructor(
    readonly bundle: LiveBundle,
    readonly catalogVersion: number,
    private readonly catalog: CatalogView,
    private readonly pageSize: number,
    private readonly serverInfo: { name: string; version: string },
    /** The tool policy for this view's callers; absent: no policy (or the raw view the gateway composes). */
    readonly gate?: ToolGate,
    /** The client features of the callers this view is for (mask); absent: every tool, whatever it needs. */
    private readonly declared?: number,
  ) {
    this.title = `Toolgate bundle: ${bundle.name}`;
    this.instructions = bundle.description || null;
    const servers = new Set<string>();
    for (const t of bundle.tools) {
      const tool = catalog.tool(t.toolId);
      // Tools switched off in the bundle or in their server's selection are hidden: unknown.
      if (!tool || t.override.enabled === false || !tool.enabled) continue;
      const state = catalog.serverState(tool.serverId);
      const reason: UnavailableReason | null = !state
        ? 'server_unavailable'
        : !state.enabled
          ? 'server_disabled'
          : !state.connected && !tool.script
            ? 'server_unavailable'
            : !tool.available
              ? 'tool_gone'
              : tool.held
                ? 'tool_changed'
                : null;
      if (reason) {
        const name = effectiveName(tool.name, t.override);
        if (!this.unavailable.has(name) && !this.denied.has(name)) {
          const u: UnavailableTool = {
            name,
            bundleId: bundle.id,
            toolId: tool.id,
            serverId: tool.serverId,
            upstreamName: tool.name,
            reason,
          };
          const denial = gate && gateUnavailable(gate, u);
          if (denial) this.denied.set(name, denial);
          else this.unavailable.set(name, u);
        }
        continue;
      }
      const needs = featureMask(tool.clientCapabilities);
      if (declared !== undefined && (needs & ~declared) !== 0) {
        // The upstream lists this tool only to clients with features this caller did not declare.
        const name = effectiveName(tool.name, t.override);
        if (!this.unavailable.has(name) && !this.denied.has(name))
          this.unavailable.set(name, {
            name,
            bundleId: bundle.id,
            toolId: tool.id,
            serverId: tool.serverId,
            upstreamName: tool.name,
            reason: 'client_capability',
            needs,
          });
        continue;
      }
      const eff = effectiveTool(tool, t.override);
      if (this.byName.has(eff.name) || this.denied.has(eff.name)) continue;
      const raw: OfferedTool = {
        name: eff.name,
        bundleId: bundle.id,
        toolId: tool.id,
        serverId: tool.serverId,
        upstreamName: tool.name,
        override: t.override,
        execution: tool.execution ?? null,
        needs,
        wire: compact({
          name: eff.name,
          title: eff.title,
          description: eff.description,
          inputSchema: eff.inputSchema,
          outputSchema: eff.outputSchema,
          annotations: eff.annotations,
          execution: tool.execution ?? null,
          _meta: eff.meta,
        }),
      };
      const offered = gate ? gateOffered(gate, raw) : raw;
      if (isDenied(offered)) {
        this.denied.set(offered.name, offered);
        continue;
      }
      this.tools.push(offered);
      this.byName.set(eff.name, offered);
      this.needs |= needs;
      if (!servers.has(tool.serverId)) {
        servers.add(tool.serverId);
        this.serverIds.push(tool.serverId);
      }
    }
    for (const name of this.byName.keys()) this.unavailable.delete(name);
    for (const name of this.byName.keys()) this.denied.delete(name);
    for (const name of this.denied.keys()) this.unavailable.delete(name);
  }

  forClient(declared: number): BundleView {
    const has = declared & this.needs;
    if (has === this.needs) return this;
    let view = this.narrowed.get(has);
    if (!view) {
      view = new BundleView(this.bundle, this.catalogVersion, this.catalog, this.pageSize, this.serverInfo, this.gate, has);
      this.narrowed.set(has, view);
    }
    return view;
  }

  /** One `tools/list` page, pre-serialised; an unknown cursor is -32602. */
  toolsListPage(cursor: unknown, era: Era): RawResult {
    const offset = decodeCursor(cursor, this.tools.length);
    const cacheKey = `${era}:${offset}`;
    let page = this.pages.get(cacheKey);
    if (!page) {
      const end = offset + this.pageSize;
      const result: Record<string, unknown> = { tools: this.tools.slice(offset, end).map((t) => t.wire) };
      if (end < this.tools.length) result.nextCursor = encodeCursor(end);
      if (era === 'stateless') Object.assign(result, this.statelessListFields());
      page = new RawResult(JSON.stringify(result));
      this.pages.set(cacheKey, page);
    }
    return page;
  }

  /** `resultType`, cache hints and server info of a 2026-07-28 list result. */
  statelessListFields(): Record<string, unknown> {
    return { resultType: 'complete', ttlMs: LIST_TTL_MS, cacheScope: 'private', _meta: { [META_SERVER_INFO]: this.serverInfo } };
  }

  /** Display name of one of the bundle's servers. */
  serverName(serverId: string): string {
    return this.catalog.serverState(serverId)?.name ?? serverId;
  }

  /** The server whose resource (or resource template) matches `uri`. */
  serverOfResource(uri: string): string | undefined {
    for (const id of this.serverIds) if (this.catalog.resourcesOfServer(id).some((r) => r.uri === uri)) return id;
    for (const id of this.serverIds) {
      if (this.catalog.resourceTemplatesOfServer(id).some((t) => templateMatches(t.uriTemplate, uri))) return id;
    }
    return undefined;
  }

  /** The server offering the prompt `name`. */
  serverOfPrompt(name: string): string | undefined {
    return this.serverIds.find((id) => this.catalog.promptsOfServer(id).some((p) => p.name === name));
  }

  /** Every resource of the bundle's servers (the first server wins a URI). */
  resources(): Record<string, unknown>[] {
    const seen = new Set<string>();
    const out: Record<string, unknown>[] = [];
    for (const id of this.serverIds) {
      for (const r of this.catalog.resourcesOfServer(id)) {
        if (seen.has(r.uri)) continue;
        seen.add(r.uri);
        out.push(
          compact({
            uri: r.uri,
            name: r.name,
            title: r.title,
            description: r.description,
            mimeType: r.mimeType,
            size: r.size,
            annotations: r.annotations,
          }),
        );
      }
    }
    return out;
  }

  resourceTemplates(): Record<string, unknown>[] {
    return this.serverIds.flatMap((id) =>
      this.catalog
        .resourceTemplatesOfServer(id)
        .map((t) =>
          compact({ uriTemplate: t.uriTemplate, name: t.name, title: t.title, description: t.description, mimeType: t.mimeType }),
        ),
    );
  }

  prompts(): Record<string, unknown>[] {
    const seen = new Set<string>();
    const out: Record<string, unknown>[] = [];
    for (const id of this.serverIds) {
      for (const p of this.catalog.promptsOfServer(id)) {
        if (seen.has(p.name)) continue;
        seen.add(p.name);
        out.push(compact({ name: p.name, title: p.title, description: p.description, arguments: p.arguments }));
      }
    }
    return out;
  }
}

/** Opaque cursor: base64url of the offset. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

/** The offset an opaque cursor names (0 for none); -32602 for anything else. */
export function decodeCursor(cursor: unknown, length: number): number {
  if (cursor === undefined || cursor === null) return 0;
  if (typeof cursor === 'string') {
    const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    const offset = m ? Number(m[1]) : NaN;
    if (offset >= 0 && offset <= length) return offset;
  }
  throw rpcError(RpcCode.InvalidParams, 'Invalid cursor');
}

/** RFC 6570 level-1 match: each `{var}` stands for one path segment or more text without `/`. */
function templateMatches(template: string, uri: string): boolean {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(uri);
}

/**
 * Compiled views by bundle, rebuilt when the bundle or the catalog version changes. `of` is the
 * bundle as it is (the gateway composes it and applies each user's policy itself); `served` is
 * what a bundle-key caller gets: the same view when there is no policy, else one compiled with
 * the policy of callers without an identity (only rules for everyone apply to them).
 */
export class BundleViews {
  private views = new Map<string, BundleView>();
  private policed = new Map<string, BundleView>();

  constructor(
    private readonly catalog: CatalogView,
    private readonly pageSize: number,
    private readonly serverInfo: { name: string; version: string },
    private readonly policy?: ToolPolicy,
  ) {}

  /** The current view of a bundle: an identity and version check on the hot path. */
  of(bundle: LiveBundle): BundleView {
    const v = this.views.get(bundle.id);
    if (v && v.bundle === bundle && v.catalogVersion === this.catalog.version) return v;
    const view = new BundleView(bundle, this.catalog.version, this.catalog, this.pageSize, this.serverInfo);
    this.views.set(bundle.id, view);
    return view;
  }

  /** The view a bundle-key caller is served (the policy applied; `of` itself when there is none). */
  served(bundle: LiveBundle): BundleView {
    const policy = this.policy;
    if (!policy || policy.empty) return this.of(bundle);
    const v = this.policed.get(bundle.id);
    if (v && v.bundle === bundle && v.catalogVersion === this.catalog.version && v.gate?.version === policy.version) return v;
    const view = new BundleView(bundle, this.catalog.version, this.catalog, this.pageSize, this.serverInfo, policy.gateFor(null));
    this.policed.set(bundle.id, view);
    return view;
  }

  forget(bundleId: string): void {
    this.views.delete(bundleId);
    this.policed.delete(bundleId);
  }
}
