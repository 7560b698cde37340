/**
 * The MCP Registry API v0.1 (`/v0.1/servers`) served for the caller: each bundle the caller may
 * use becomes one `server.json` entry whose `remotes` are the bundle's Streamable HTTP endpoints.
 * An IDE or assistant pointed at this server as its private registry then lists exactly the
 * bundles its person may use, which makes the gateway the company's MCP allow-list.
 *
 * A bundle has no release history: its one version is its current state, named after its last
 * change, so the version grows whenever the bundle (its tools, overrides or details) changes.
 * Names are `<reversed public host>/<bundle slug>`; two bundles whose names slug alike are told
 * apart by the start of their ids, decided over every bundle so a name never depends on who asks.
 */
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import { mayUseBundle, type BundleUser } from '../../domain/bundle-access.js';
import type { Principal } from '../../domain/principal.js';
import type { BundlesStore, DbBundleSummaryRow } from '../../stores/bundles-store.js';
import type { BundlesRegistry } from '../../live/bundles-registry.js';
import type { TeamMemberships } from '../../live/team-memberships.js';

type Schemas = components['schemas'];
export type RegistryServerList = Schemas['RegistryServerList'];
export type RegistryServerResponse = Schemas['RegistryServerResponse'];

/** The `server.json` schema the documents follow (the Registry API version they come from). */
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** Entries per page when the caller names no limit (the official registry's default). */
const DEFAULT_LIMIT = 30;

/** Longest `title` and `description` the schema allows. */
const MAX_TEXT = 100;

/** Largest number of bundles read for one listing (the whole table, ordered in memory). */
const MAX_BUNDLES = 100_000;

export interface RegistryListQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
  search?: string | undefined;
  updated_since?: string | undefined;
  version?: string | undefined;
}

/** A bundle with the registry name it goes by. */
interface Named {
  readonly name: string;
  readonly row: DbBundleSummaryRow;
}

/** The reverse-DNS namespace of a base URL's host: `gateway.example.com` → `com.example.gateway`. */
export function registryNamespace(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  // An IPv6 literal has no DNS form; its groups joined by dashes keep the name in the pattern.
  if (host.includes(':')) return `ip6-${host.replace(/[^0-9a-f]/gi, '-')}`;
  if (/^\d+(\.\d+){3}$/.test(host)) return host;
  return host.split('.').filter(Boolean).reverse().join('.');
}

/** A bundle name as the second half of a registry name: lowercase ASCII letters, digits and dashes. */
export function bundleSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'bundle';
}

/** The version of a bundle's current state: its last change as `YYYYMMDD.HHMMSS.mmm` (UTC, no leading zeros). */
export function bundleVersion(updatedAt: Date): string {
  const d = updatedAt;
  const date = d.getUTCFullYear() * 10000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
  const time = d.getUTCHours() * 10000 + d.getUTCMinutes() * 100 + d.getUTCSeconds();
  return `${date}.${time}.${d.getUTCMilliseconds()}`;
}

/** Cuts text to `max` characters, ending with an ellipsis when cut. */
function clip(text: string, max: number): string {
  const chars = [...text.trim()];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

function encodeCursor(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const name = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(name)) throw new BadRequestError('The cursor is not one this API issued', 'invalid_cursor');
  return name;
}

/** Registry API documents of the bundles a caller may use. */
export class RegistryApiService {
  constructor(
    private readonly deps: {
      bundles: BundlesStore;
      /** The live bundles (with their shares): who may use a bundle is decided on them. */
      registry: Pick<BundlesRegistry, 'get'>;
      /** The teams of each user (a bundle shared with a team is usable by its members). */
      memberships: Pick<TeamMemberships, 'teamsOf'>;
    },
  ) {}

  /** Whether the caller may use the bundle of `row` (the rule of the gateway and the REST lists). */
  private usable(principal: Principal, row: { id: string }): boolean {
    const live = this.deps.registry.get(row.id);
    return !!live && mayUseBundle(this.user(principal), live);
  }

  /** `GET /v0.1/servers`: a page of the caller's entries ordered by name. */
  async list(principal: Principal, baseUrl: string, query: RegistryListQuery): Promise<RegistryServerList> {
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const limit = query.limit ?? DEFAULT_LIMIT;
    const since = query.updated_since ? new Date(query.updated_since).getTime() : undefined;
    const needle = query.search?.toLowerCase();
    const all = (await this.named(baseUrl)).filter((n) => this.usable(principal, n.row));
    const matching = all.filter((n) => {
      if (after !== undefined && n.name <= after) return false;
      if (since !== undefined && n.row.updated_at.getTime() < since) return false;
      if (query.version && query.version !== 'latest' && query.version !== bundleVersion(n.row.updated_at)) return false;
      if (needle && ![n.name, n.row.name, n.row.description ?? ''].some((s) => s.toLowerCase().includes(needle))) return false;
      return true;
    });
    const page = matching.slice(0, limit);
    const last = page[page.length - 1];
    return {
      servers: page.map((n) => this.entry(n, baseUrl)),
      metadata: { count: page.length, ...(matching.length > limit && last ? { nextCursor: encodeCursor(last.name) } : {}) },
    };
  }

  /** `GET /v0.1/servers/{name}/versions`: the one version of an entry. */
  async versions(principal: Principal, baseUrl: string, serverName: string): Promise<RegistryServerList> {
    const entry = await this.version(principal, baseUrl, serverName, 'latest');
    return { servers: [entry], metadata: { count: 1 } };
  }

  /** `GET /v0.1/servers/{name}/versions/{version}`: `latest` or the exact current version. */
  async version(principal: Principal, baseUrl: string, serverName: string, version: string): Promise<RegistryServerResponse> {
    const name = decodeName(serverName);
    const found = (await this.named(baseUrl)).find((n) => n.name === name);
    // A bundle the caller may not use is answered like one that does not exist.
    if (!found || !this.usable(principal, found.row)) throw new NotFoundError(`Server ${name} not found`, 'server_not_found');
    if (version !== 'latest' && decodeName(version) !== bundleVersion(found.row.updated_at))
      throw new NotFoundError(`Server ${name} has no version ${decodeName(version)}`, 'version_not_found');
    return this.entry(found, baseUrl);
  }

  private user(principal: Principal): BundleUser {
    return { userId: principal.userId, role: principal.role, teamIds: this.deps.memberships.teamsOf(principal.userId) };
  }

  /** Every bundle with its registry name, ordered by name. */
  private async named(baseUrl: string): Promise<Named[]> {
    const { rows } = await this.deps.bundles.list({ offset: 0, limit: MAX_BUNDLES });
    const namespace = registryNamespace(baseUrl);
    const bySlug = new Map<string, DbBundleSummaryRow[]>();
    for (const row of rows) {
      const slug = bundleSlug(row.name);
      bySlug.set(slug, [...(bySlug.get(slug) ?? []), row]);
    }
    const out: Named[] = [];
    for (const [slug, group] of bySlug) {
      for (const row of group) {
        const unique = group.length === 1 ? slug : `${slug}-${row.id.slice(0, 8)}`;
        out.push({ name: `${namespace}/${unique}`, row });
      }
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private entry({ name, row }: Named, baseUrl: string): RegistryServerResponse {
    const base = baseUrl.replace(/\/+$/, '');
    const toolCount = Number(row.tool_count);
    const description = row.description?.trim()
      ? clip(row.description, MAX_TEXT)
      : `Toolgate bundle with ${toolCount} tool${toolCount === 1 ? '' : 's'}`;
    return {
      server: {
        $schema: SERVER_JSON_SCHEMA,
        name,
        title: clip(row.name, MAX_TEXT),
        description,
        version: bundleVersion(row.updated_at),
        remotes: [
          // OAuth (Toolgate is the authorization server; the client discovers it from the
          // endpoint's protected resource metadata) or a user API key with the mcp scope.
          { type: 'streamable-http', url: `${base}/mcp/gateway/bundles/${row.id}` },
          {
            type: 'streamable-http',
            url: `${base}/mcp/bundle/{bundle_key}`,
            variables: {
              bundle_key: {
                description: `The key of the bundle "${clip(row.name, 200)}" (from its owner in the Toolgate console)`,
                isRequired: true,
                isSecret: true,
              },
            },
          },
        ],
        _meta: { 'io.toolgate/bundle': { bundle_id: row.id, tool_count: toolCount } },
      },
      _meta: {
        'io.modelcontextprotocol.registry/official': {
          status: 'active',
          publishedAt: row.created_at.toISOString(),
          updatedAt: row.updated_at.toISOString(),
          isLatest: true,
        },
      },
    };
  }
}

/** A path segment as the caller sent it, URL-decoded once when the router left it encoded. */
function decodeName(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
