/**
 * The tool as MCP clients of a bundle will see it in `tools/list`, computed in the browser while
 * an override is being edited (the live preview). Its types are the contract's (src/generated);
 * its rules repeat the server's (src/domain/bundle-tools.ts: `effectiveTool`,
 * `publishedInputSchema`), because the console runs in the browser and may import nothing of src/
 * but the generated contract types. The copy is a few lines of pure code, so rather than a
 * generator that would carry server code into src/generated, a property test
 * (test/unit/web/console-effective-tool.test.ts) runs both on the same random tools and overrides and
 * fails when they disagree.
 */
import type { components } from '../../../src/generated/openapi.js';

type JsonObject = Record<string, unknown>;
type Schemas = components['schemas'];

/** The override fields that shape the published tool: the contract's BundleToolOverride. */
export type OverrideShape = Schemas['BundleToolOverride'];

/** The upstream tool: the fields of the contract's CatalogTool that matter here. */
export type UpstreamTool = Pick<
  Schemas['CatalogTool'],
  'name' | 'title' | 'description' | 'input_schema' | 'output_schema' | 'annotations'
>;

/** Arguments callers can neither see nor set: the pinned and the hidden ones. */
export function concealedArguments(o: OverrideShape): Set<string> {
  return new Set([...Object.keys(o.pinned ?? {}), ...(o.hidden_arguments ?? [])]);
}

/** The published input schema: concealed arguments removed, defaulted ones optional with their default. */
export function publishedInputSchema(schema: JsonObject, o: OverrideShape): JsonObject {
  const concealed = concealedArguments(o);
  const defaults = o.defaults ?? {};
  if (concealed.size === 0 && Object.keys(defaults).length === 0) return schema;
  const properties = { ...((schema.properties as JsonObject | undefined) ?? {}) };
  for (const name of concealed) delete properties[name];
  for (const [name, value] of Object.entries(defaults)) {
    const prop = properties[name];
    if (prop && typeof prop === 'object' && !concealed.has(name)) properties[name] = { ...(prop as object), default: value };
  }
  const out: JsonObject = { ...schema, properties };
  if (Array.isArray(schema.required)) {
    const required = (schema.required as string[]).filter((n) => !concealed.has(n) && !(n in defaults));
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
}

/** The MCP Tool object of `tools/list` (absent members left out, as MCP does). */
export function effectiveWireTool(tool: UpstreamTool, o: OverrideShape): JsonObject {
  const wire: JsonObject = {
    name: o.name ?? tool.name,
    title: o.title ?? tool.title,
    description: o.description ?? tool.description,
    inputSchema: publishedInputSchema(tool.input_schema, o),
    outputSchema: tool.output_schema,
    annotations: o.annotations ?? tool.annotations,
  };
  for (const k of Object.keys(wire)) if (wire[k] === null || wire[k] === undefined) delete wire[k];
  return wire;
}
