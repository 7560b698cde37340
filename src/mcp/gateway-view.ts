import { abortSignalOf, type ToolCallResult } from '../domain/upstream-call.js';
import type { CatalogView } from '../domain/catalog.js';
import { MAX_QUERY_LENGTH, toolDocumentId, type ToolSearchRequest, type ToolSearchResult } from '../search/index.js';
import { compact, decodeCursor, encodeCursor, LIST_TTL_MS, type BundleView } from './bundle-view.js';
import type { BuiltinTool, McpContext, McpMethodDeps, McpView } from './context.js';
import { toolsCall } from './methods/tools.js';
import { META_SERVER_INFO, RawResult, RpcCode, rpcError, type Era } from './protocol.js';
import type { DeniedTool, OfferedTool, UnavailableTool } from './view.js';
import type { ToolGate } from '../live/tool-policy.js';
import { gateOffered, gateUnavailable, isDenied } from './policy-gate.js';

/** How `/mcp/gateway` serves a user (openapi.yaml, `GatewayMode`). */
export type GatewayMode = 'direct' | 'search_execute';

/** The part of the tool search a gateway view uses (src/search `ToolSearch`). */
export interface GatewaySearcher {
  search(request: ToolSearchRequest): Promise<ToolSearchResult>;
}

/** What a gateway view is compiled from. */
export interface GatewayViewInput {
  readonly mode: GatewayMode;
  /** Most tools one `search` returns (the user's `search_result_limit`). */
  readonly searchLimit: number;
  /** The compiled views of the user's selected bundles, in selection order. */
  readonly bundles: readonly BundleView[];
  readonly catalog: CatalogView;
  readonly search: GatewaySearcher;
  readonly pageSize: number;
  readonly serverInfo: { name: string; version: string };
  /** The tool policy of this user; absent when there is none (nothing is filtered). */
  readonly gate?: ToolGate | undefined;
}

/** `_meta` key of a `search` result: how the search ranked (`keyword` or `hybrid`) and why keyword-only. */
export const META_SEARCH = 'io.toolgate/search';
/** Longest bundle part of a qualified tool name. */
const MAX_PREFIX = 32;
/** Longest MCP tool name (MCP.md). */
const MAX_TOOL_NAME = 128;

/**
 * The name prefix of a bundle for disambiguation: its name in lower case, every run of
 * characters other than `a-z` and `0-9` turned into `_`, trimmed of `_`, at most 32 characters
 * (`bundle` when nothing is left).
 */
export function bundleNamePrefix(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_PREFIX)
    .replace(/_+$/, '');
  return slug || 'bundle';
}

/**
 * The names the gateway gives the tools of several bundles (openapi.yaml, `mcpGatewayPost`):
 * a name that only one selected bundle offers keeps it; a name that two or more offer (counting
 * tools that are unavailable for the moment, so that a server going down renames nothing) is
 * served as `<prefix>__<name>` in every one of them, `<prefix>` being {@link bundleNamePrefix},
 * followed by `_` and the first 8 characters of the bundle id when two of those bundles share a
 * prefix (or when the qualified name is taken otherwise). A qualified name longer than 128
 * characters drops the bundle-name part and keeps `<id8>__`. The result depends only on the
 * selection, never on which tool came first.
 *
 * Returns, per bundle (by index), the gateway name of each bundle tool name that collides.
 */
export function disambiguate(bundles: readonly { id: string; name: string; names: ReadonlySet<string> }[]): Map<string, string>[] {
  const holders = new Map<string, number[]>();
  bundles.forEach((b, i) => {
    for (const n of b.names) {
      const list = holders.get(n);
      if (list) list.push(i);
      else holders.set(n, [i]);
    }
  });
  const out = bundles.map(() => new Map<string, string>());
  const taken = new Set<string>();
  for (const [n, list] of holders) if (list.length === 1) taken.add(n);
  for (const [n, list] of [...holders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (list.length < 2) continue;
    const prefixes = list.map((i) => bundleNamePrefix(bundles[i]!.name));
    list.forEach((i, k) => {
      const b = bundles[i]!;
      const id8 = b.id.replace(/-/g, '').slice(0, 8);
      const shared = prefixes.filter((p) => p === prefixes[k]).length > 1;
      let qualified = shared ? `${prefixes[k]}_${id8}__${n}` : `${prefixes[k]}__${n}`;
      if (taken.has(qualified)) qualified = `${prefixes[k]}_${id8}__${n}`;
      if (qualified.length > MAX_TOOL_NAME) qualified = `${id8}__${n}`.slice(0, MAX_TOOL_NAME);
      // Still taken (a plain tool really is called that): left out rather than shadowing it.
      if (taken.has(qualified)) return;
      taken.add(qualified);
      out[i]!.set(n, qualified);
    });
  }
  return out;
}

/** An `isError` tool result with one text block: the gateway tools' answer to bad arguments. */
function errorResult(text: string): ToolCallResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What one user sees on `/mcp/gateway`, compiled in memory from their selected bundles' views
 * (so overrides, defaults, pinned and hidden arguments and tool selection apply exactly as on
 * each bundle endpoint) and cached until the selection, a bundle or the catalog changes.
 *
 * In `direct` mode it offers every tool of those bundles under the gateway's names. In
 * `search_execute` mode it offers `search` and `execute` only: both work on the direct view of
 * the same selection (`reachable`), so listing, searching and calling share one policy path,
 * and a tool name is never callable directly.
 */
export class GatewayView implements McpView {
  readonly title = 'Toolgate gateway';
  readonly instructions: string | null;
  readonly tools: OfferedTool[] = [];
  readonly byName = new Map<string, OfferedTool>();
  readonly unavailable = new Map<string, UnavailableTool>();
  /** Tools the policy denies to this user, under their gateway names: neither listed nor searchable. */
  readonly denied = new Map<string, DeniedTool>();
  readonly builtins: ReadonlyMap<string, BuiltinTool> | undefined;
  /** Every tool the user may call (the direct view of the selection); this view itself in direct mode. */
  readonly reachable: GatewayView;
  /** Search document id of every offered tool ({@link toolDocumentId}): the search's `allowed` set. */
  readonly documentIds = new Set<string>();
  private readonly byDocument = new Map<string, OfferedTool>();
  private readonly listed: Record<string, unknown>[];
  private readonly pages = new Map<string, RawResult>();
  /** What the reachable tools need callers to have declared (mask; see McpView). */
  readonly needs: number = 0;
  /** This view as callers lacking some of `needs` see it, by the features they have (of `needs`). */
  private readonly narrowed = new Map<number, GatewayView>();

  constructor(private readonly input: GatewayViewInput) {
    if (input.mode === 'search_execute') {
      this.reachable = new GatewayView({ ...input, mode: 'direct' });
      this.needs = this.reachable.needs;
      const builtins = [searchTool(this.reachable, input), executeTool(this.reachable)];
      this.builtins = new Map(builtins.map((b) => [b.name, b]));
      this.listed = builtins.map((b) => b.wire);
      this.instructions = 'Find tools with `search` (describe what you want to do), then call one with `execute` (its name and arguments).';
      return;
    }
    this.reachable = this;
    this.builtins = undefined;
    this.instructions = null;
    const renames = disambiguate(
      input.bundles.map((v) => ({ id: v.bundle.id, name: v.bundle.name, names: new Set([...v.byName.keys(), ...v.unavailable.keys()]) })),
    );
    let needs = 0;
    input.bundles.forEach((view, i) => {
      const rename = renames[i]!;
      for (const tool of view.tools) {
        const name = rename.get(tool.name) ?? tool.name;
        // A colliding name left without a qualified form (see disambiguate) is not served.
        if (this.byName.has(name) || this.denied.has(name) || (name === tool.name && holdsCollision(renames, tool.name))) continue;
        const named: OfferedTool = name === tool.name ? tool : { ...tool, name, wire: { ...tool.wire, name } };
        const offered = input.gate ? gateOffered(input.gate, named) : named;
        if (isDenied(offered)) {
          this.denied.set(name, offered);
          continue;
        }
        this.tools.push(offered);
        this.byName.set(name, offered);
        needs |= offered.needs;
        const docId = toolDocumentId(tool.bundleId, tool.toolId);
        this.documentIds.add(docId);
        this.byDocument.set(docId, offered);
      }
      for (const u of view.unavailable.values()) {
        const name = rename.get(u.name) ?? u.name;
        if (
          this.byName.has(name) ||
          this.unavailable.has(name) ||
          this.denied.has(name) ||
          (name === u.name && holdsCollision(renames, u.name))
        )
          continue;
        const named = name === u.name ? u : { ...u, name };
        const denial = input.gate && gateUnavailable(input.gate, named);
        if (denial) this.denied.set(name, denial);
        else this.unavailable.set(name, named);
      }
    });
    for (const name of this.byName.keys()) this.unavailable.delete(name);
    for (const name of this.byName.keys()) this.denied.delete(name);
    this.needs = needs;
    this.listed = this.tools.map((t) => t.wire);
  }

  /** The view of the same selection compiled from each bundle's view for a caller with the features `declared`. */
  forClient(declared: number): GatewayView {
    const has = declared & this.needs;
    if (has === this.needs) return this;
    let view = this.narrowed.get(has);
    if (!view) {
      view = new GatewayView({ ...this.input, bundles: this.input.bundles.map((b) => b.forClient(has)) });
      this.narrowed.set(has, view);
    }
    return view;
  }

  /** The offered tool behind a search document id, under its gateway name. */
  toolOfDocument(id: string): OfferedTool | undefined {
    return this.byDocument.get(id);
  }

  toolsListPage(cursor: unknown, era: Era): RawResult {
    const offset = decodeCursor(cursor, this.listed.length);
    const cacheKey = `${era}:${offset}`;
    let page = this.pages.get(cacheKey);
    if (!page) {
      const end = offset + this.input.pageSize;
      const result: Record<string, unknown> = { tools: this.listed.slice(offset, end) };
      if (end < this.listed.length) result.nextCursor = encodeCursor(end);
      if (era === 'stateless') Object.assign(result, this.statelessListFields());
      page = new RawResult(JSON.stringify(result));
      this.pages.set(cacheKey, page);
    }
    return page;
  }

  statelessListFields(): Record<string, unknown> {
    return { resultType: 'complete', ttlMs: LIST_TTL_MS, cacheScope: 'private', _meta: { [META_SERVER_INFO]: this.input.serverInfo } };
  }

  serverName(serverId: string): string {
    return this.input.catalog.serverState(serverId)?.name ?? serverId;
  }

  serverOfResource(uri: string): string | undefined {
    for (const v of this.input.bundles) {
      const id = v.serverOfResource(uri);
      if (id) return id;
    }
    return undefined;
  }

  serverOfPrompt(name: string): string | undefined {
    for (const v of this.input.bundles) {
      const id = v.serverOfPrompt(name);
      if (id) return id;
    }
    return undefined;
  }

  resources(): Record<string, unknown>[] {
    return unique(
      this.input.bundles.flatMap((v) => v.resources()),
      (r) => String(r.uri),
    );
  }

  resourceTemplates(): Record<string, unknown>[] {
    return unique(
      this.input.bundles.flatMap((v) => v.resourceTemplates()),
      (t) => String(t.uriTemplate),
    );
  }

  prompts(): Record<string, unknown>[] {
    return unique(
      this.input.bundles.flatMap((v) => v.prompts()),
      (p) => String(p.name),
    );
  }
}

/** True when some bundle serves `name` under a qualified name (so the plain name is nobody's). */
function holdsCollision(renames: readonly Map<string, string>[], name: string): boolean {
  return renames.some((r) => r.has(name));
}

function unique<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The `search` tool: query text → up to `search_result_limit` of the user's tools, best first,
 * each with its gateway name, description, input schema and score. The search ranks only the
 * documents of the user's reachable tools (`allowed`), so it cannot surface anything else.
 */
function searchTool(reachable: GatewayView, input: GatewayViewInput): BuiltinTool {
  const limit = input.searchLimit;
  const wire = {
    name: 'search',
    title: 'Search tools',
    description: `Finds the tools you can call by what they do. Returns up to ${limit} tools, best match first, each with its name, description, input schema and a relevance score; call one with \`execute\`.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'What you want to do, in words.' },
        limit: { type: 'integer', minimum: 1, maximum: limit, description: `Most tools to return (default and maximum ${limit}).` },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        tools: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              title: { type: 'string' },
              description: { type: 'string' },
              inputSchema: { type: 'object' },
              score: { type: 'number' },
            },
            required: ['name', 'inputSchema', 'score'],
          },
        },
      },
      required: ['tools'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
  return {
    name: 'search',
    wire,
    async call(args: Record<string, unknown>, ctx: McpContext): Promise<ToolCallResult> {
      const extra = Object.keys(args).find((k) => k !== 'query' && k !== 'limit');
      if (extra !== undefined) return errorResult(`Invalid arguments for tool search: unknown argument "${extra.slice(0, 64)}"`);
      const { query } = args;
      if (typeof query !== 'string' || query.trim().length === 0 || query.length > MAX_QUERY_LENGTH)
        return errorResult(
          `Invalid arguments for tool search: "query" must be a non-empty string of at most ${MAX_QUERY_LENGTH} characters`,
        );
      const wanted = args.limit ?? limit;
      if (typeof wanted !== 'number' || !Number.isInteger(wanted) || wanted < 1 || wanted > limit)
        return errorResult(`Invalid arguments for tool search: "limit" must be an integer from 1 to ${limit}`);
      let found: ToolSearchResult;
      try {
        found = await input.search.search({ query, allowed: reachable.documentIds, limit: wanted, signal: abortSignalOf(ctx.signal) });
      } catch (err) {
        if (ctx.signal.aborted) throw rpcError(RpcCode.RequestCancelled, 'Request cancelled');
        throw err;
      }
      const tools: Record<string, unknown>[] = [];
      for (const hit of found.hits) {
        // The search only returns allowed ids; the lookup is the second lock on the same door.
        const tool = reachable.toolOfDocument(hit.id);
        if (!tool) continue;
        tools.push(
          compact({
            name: tool.name,
            title: tool.wire.title,
            description: tool.wire.description,
            inputSchema: tool.wire.inputSchema,
            score: Math.round(hit.score * 1e4) / 1e4,
          }),
        );
      }
      const meta = { mode: found.mode, keyword_only: found.mode === 'keyword', ...(found.reason ? { reason: found.reason } : {}) };
      return {
        content: [{ type: 'text', text: JSON.stringify({ tools }) }],
        structuredContent: { tools },
        _meta: { [META_SEARCH]: meta },
      };
    },
  };
}

/**
 * The `execute` tool: runs one of the user's tools by its gateway name, exactly as `tools/call`
 * of that name does in direct mode (same view, same recording, progress and cancellation of
 * this request passed through). Bad `execute` arguments, and a name the user cannot call, are
 * `isError` results.
 */
function executeTool(reachable: GatewayView): BuiltinTool {
  const wire = {
    name: 'execute',
    title: 'Execute a tool',
    description:
      'Calls one of your tools by the name `search` gave, with its arguments (an object matching the input schema `search` showed). Returns the tool result.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: MAX_TOOL_NAME, description: 'The tool name, as `search` returned it.' },
        arguments: { type: 'object', description: "The tool's arguments.", additionalProperties: true },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { openWorldHint: true },
  };
  return {
    name: 'execute',
    wire,
    async call(args: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Promise<ToolCallResult> {
      const extra = Object.keys(args).find((k) => k !== 'name' && k !== 'arguments');
      if (extra !== undefined) return errorResult(`Invalid arguments for tool execute: unknown argument "${extra.slice(0, 64)}"`);
      const { name } = args;
      const toolArgs = args.arguments ?? {};
      if (typeof name !== 'string' || name.length === 0 || name.length > MAX_TOOL_NAME)
        return errorResult('Invalid arguments for tool execute: "name" must be the name of a tool that search returned');
      if (!isPlainObject(toolArgs)) return errorResult('Invalid arguments for tool execute: "arguments" must be an object');
      if (!reachable.byName.has(name) && !reachable.unavailable.has(name) && !reachable.denied.has(name))
        return errorResult(`Unknown tool: ${name.slice(0, MAX_TOOL_NAME)}. Use search to find the tools you can call.`);
      return toolsCall({ name, arguments: toolArgs }, { ...ctx, view: reachable }, deps, true);
    },
  };
}
