/**
 * The tool as MCP clients of a bundle will see it in `tools/list`, computed in the browser while
 * an override is being edited (the live preview). It mirrors the server's rules
 * (src/domain/bundle-tools.ts); test/unit/console-effective-tool.test.ts checks that both
 * agree.
 */

type JsonObject = Record<string, unknown>;

/** The override fields that shape the published tool (the contract's BundleToolOverride). */
export interface OverrideShape {
  name?: string | null;
  title?: string | null;
  description?: string | null;
  annotations?: JsonObject | null;
  defaults?: JsonObject | null;
  pinned?: JsonObject | null;
  hidden_arguments?: string[] | null;
}

/** The upstream tool (the contract's CatalogTool fields that matter here). */
export interface UpstreamTool {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: JsonObject;
  output_schema: JsonObject | null;
  annotations: JsonObject | null;
}

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
