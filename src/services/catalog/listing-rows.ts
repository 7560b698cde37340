/**
 * What an upstream's listing becomes in the catalog store: tools, resources and prompts as rows
 * (schemas coerced to object schemas, absent fields null, names and URIs holding U+0000 left out).
 * Pure; the catalog sync (catalog-sync.ts) reads the listing and stores these.
 */
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaObject } from '../../domain/catalog.js';
import type { UpstreamListing } from '../../upstream/upstream-pool.js';

/** Coerces an upstream's schema into an object schema (MCP requires `type: object`). */
export function asObjectSchema(value: unknown): JsonSchemaObject {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    return (v.type === 'object' ? v : { ...v, type: 'object' }) as JsonSchemaObject;
  }
  return { type: 'object' };
}

const nullable = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const objOrNull = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** Whether two lists of client features are the same (absent and empty alike). */
export function sameFeatures(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  return (a ?? []).join() === (b ?? []).join();
}

/**
 * Tool names are unique per server: the first definition of a name wins. A name holding U+0000
 * cannot be stored nor sensibly called, so such a tool is left out.
 */
export function dedupeTools(tools: Tool[]): Tool[] {
  const seen = new Set<string>();
  return tools.filter((t) => (seen.has(t.name) || t.name.includes('\0') ? false : (seen.add(t.name), true)));
}

export function toolUpsert(t: Tool) {
  return {
    name: t.name,
    title: nullable(t.title ?? (t.annotations?.title as string | undefined)),
    description: nullable(t.description),
    input_schema: asObjectSchema(t.inputSchema),
    output_schema: t.outputSchema ? asObjectSchema(t.outputSchema) : null,
    annotations: objOrNull(t.annotations),
    meta: objOrNull(t._meta),
    execution: objOrNull(t.execution),
  };
}

export function resourceUpserts(listing: UpstreamListing) {
  const fromResource = (r: Resource) => ({
    uri: r.uri,
    is_template: false,
    name: r.name,
    title: nullable(r.title),
    description: nullable(r.description),
    mime_type: nullable(r.mimeType),
    size: typeof r.size === 'number' ? r.size : null,
    annotations: objOrNull(r.annotations),
  });
  const fromTemplate = (r: ResourceTemplate) => ({
    uri: r.uriTemplate,
    is_template: true,
    name: r.name,
    title: nullable(r.title),
    description: nullable(r.description),
    mime_type: nullable(r.mimeType),
    size: null,
    annotations: objOrNull(r.annotations),
  });
  // A URI holding U+0000 cannot be stored (nor read back by a client): left out, like such tools.
  return [...listing.resources.map(fromResource), ...listing.resourceTemplates.map(fromTemplate)].filter((r) => !r.uri.includes('\0'));
}

export function promptUpsert(p: Prompt) {
  return {
    name: p.name,
    title: nullable(p.title),
    description: nullable(p.description),
    arguments: (p.arguments ?? []).map((a) => ({
      name: a.name,
      ...(a.description !== undefined ? { description: a.description } : {}),
      ...(a.required !== undefined ? { required: a.required } : {}),
    })),
  };
}
