import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as z from 'zod';
import { CLIENT_FEATURES, type ClientFeature } from '../domain/client-features.js';
import { SILENT } from './affine-connections.js';
import { UpstreamConnection, type UpstreamPoolOptions, type UpstreamServerSpec } from './upstream-connection.js';

/** Upper bound on list pages read from one upstream (a defence against a server that pages forever). */
export const MAX_PAGES = 1000;

/**
 * A `tools/list` page read without the SDK's result schema, which rebuilds every tool object and
 * so reorders the keys of its input schema: tools pass through as the upstream wrote them (key
 * order and JSON Schema 2020-12 keywords intact).
 */
export const RAW_TOOLS_PAGE = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** Every page of a list, read in order (a cursor the upstream repeats ends it). */
export async function readPages<T>(fetch: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>) {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const { items, nextCursor } = await fetch(cursor);
    all.push(...items);
    if (!nextCursor || nextCursor === cursor) break;
    cursor = nextCursor;
  }
  return all;
}

/** The raw tool objects of every `tools/list` page of a client's upstream. */
export function listRawTools(client: Client, request: RequestOptions): Promise<unknown[]> {
  return readPages(async (cursor) => {
    const r = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, RAW_TOOLS_PAGE, request);
    return { items: r.tools, nextCursor: r.nextCursor };
  });
}

/**
 * Which of an upstream's tools it lists only to clients that declare sampling, elicitation or
 * roots (some servers register a tool only when the client can serve the requests it makes).
 * The shared connection declares all three, because it relays them to whichever caller needs
 * them, so the catalog holds every tool; the MCP endpoints then hide a tool from a caller that did
 * not declare what the tool needs, so no caller sees a tool the upstream would not have shown it.
 *
 * Found by listing the tools again over short-lived connections that declare less: none at all,
 * and only when some tools were missing there, each feature alone and all three. A tool listed
 * with none needs nothing; one listed with a feature alone needs that feature (the first such,
 * when several suffice); one listed only with all three needs them all. A tool listed by none of
 * the probes needs nothing: it exists in the shared connection's state only (a tool a session
 * added at run time), which says nothing about client features. A server is probed again only
 * when its tool names change (a changed description does not start a process).
 */
export class CapabilityProbe {
  private readonly known = new Map<string, { names: string; needs: ReadonlyMap<string, ClientFeature[]> }>();
  /** Probe connections open now (closed with the pool). */
  private readonly open = new Set<UpstreamConnection>();
  private closed = false;

  constructor(private readonly options: UpstreamPoolOptions) {}

  /** The tools of `toolNames` that need client features, and which (absent: none). */
  async needs(spec: UpstreamServerSpec, toolNames: readonly string[], timeoutMs: number): Promise<ReadonlyMap<string, ClientFeature[]>> {
    const names = [...toolNames].sort().join('\n');
    const cached = this.known.get(spec.id);
    if (cached && cached.names === names) return cached.needs;
    const needs = new Map<string, ClientFeature[]>();
    if (toolNames.length > 0) {
      const bare = await this.listNames(spec, {}, timeoutMs);
      const missing = toolNames.filter((n) => !bare.has(n));
      if (missing.length > 0) {
        const declaring = [...CLIENT_FEATURES.map((f) => [f]), [...CLIENT_FEATURES]];
        const listed = await Promise.all(
          declaring.map((features) => this.listNames(spec, Object.fromEntries(features.map((f) => [f, {}])), timeoutMs)),
        );
        for (const name of missing) {
          const i = listed.findIndex((l) => l.has(name));
          if (i >= 0) needs.set(name, declaring[i]!);
        }
      }
    }
    this.known.set(spec.id, { names, needs });
    return needs;
  }

  /** Forgets what was found for a server (it was changed or removed). */
  forget(serverId: string): void {
    this.known.delete(serverId);
  }

  /** Closes the probes in flight (the pool is closing): their stdio processes end. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open].map((c) => c.close()));
  }

  /** The tool names an upstream lists to a client declaring `capabilities`, over a connection of its own. */
  private async listNames(spec: UpstreamServerSpec, capabilities: Record<string, unknown>, timeoutMs: number): Promise<Set<string>> {
    if (this.closed) throw new Error('the upstream pool is closed');
    const connection = new UpstreamConnection(spec, this.options, SILENT, capabilities);
    this.open.add(connection);
    connection.start();
    try {
      const tools = await connection.run('capability probe', { timeoutMs }, (client, request) => listRawTools(client, request));
      return new Set(tools.flatMap((t) => (isNamed(t) ? [t.name] : [])));
    } finally {
      this.open.delete(connection);
      await connection.close();
    }
  }
}

function isNamed(t: unknown): t is { name: string } {
  return typeof t === 'object' && t !== null && typeof (t as { name?: unknown }).name === 'string';
}
