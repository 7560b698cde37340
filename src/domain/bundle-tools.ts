import type { ValidationIssue } from '../errors.js';
import type { ToolOverride } from './tool-override.js';
import type { CatalogTool, JsonSchemaObject, ToolAnnotations } from './catalog.js';

/** Valid MCP tool name (MCP.md: 1–128 of `[A-Za-z0-9_.-]`). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A tool as the clients of a bundle see it: override applied to the catalog definition. */
export interface EffectiveTool {
  name: string;
  title: string | null;
  description: string | null;
  annotations: ToolAnnotations | null;
  inputSchema: JsonSchemaObject;
  outputSchema: JsonSchemaObject | null;
  meta: Record<string, unknown> | null;
}

/** The name clients call a tool by: the override name, else the upstream name. */
export function effectiveName(upstreamName: string, override: ToolOverride): string {
  return override.name ?? upstreamName;
}

/** Arguments the caller can neither see nor set: pinned ones and hidden ones. */
export function concealedArguments(override: ToolOverride): Set<string> {
  return new Set([...Object.keys(override.pinned ?? {}), ...(override.hidden_arguments ?? [])]);
}

/**
 * The published input schema: pinned and hidden arguments removed from `properties` and
 * `required`; defaulted arguments become optional and carry their default.
 */
export function publishedInputSchema(schema: JsonSchemaObject, override: ToolOverride): JsonSchemaObject {
  const concealed = concealedArguments(override);
  const defaults = override.defaults ?? {};
  if (concealed.size === 0 && Object.keys(defaults).length === 0) return schema;
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  for (const name of concealed) delete properties[name];
  for (const [name, value] of Object.entries(defaults)) {
    const prop = properties[name];
    if (prop && typeof prop === 'object' && !concealed.has(name)) properties[name] = { ...(prop as object), default: value };
  }
  const out: JsonSchemaObject = { ...schema, properties };
  if (Array.isArray(schema.required)) {
    const required = (schema.required as string[]).filter((n) => !concealed.has(n) && !(n in defaults));
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
}

/** Applies an override to a catalog tool. */
export function effectiveTool(tool: CatalogTool, override: ToolOverride): EffectiveTool {
  return {
    name: effectiveName(tool.name, override),
    title: override.title ?? tool.title,
    description: override.description ?? tool.description,
    annotations: (override.annotations as ToolAnnotations | null | undefined) ?? tool.annotations,
    inputSchema: publishedInputSchema(tool.inputSchema, override),
    outputSchema: tool.outputSchema,
    meta: tool.meta,
  };
}

/**
 * Raised when a caller supplies an argument it may not set: `pinned` (the bundle fixes its value)
 * or `hidden` (the bundle removed it from the tool's inputs). An argument both pinned and hidden
 * is reported as pinned.
 */
export class ConcealedArgumentError extends Error {
  constructor(
    readonly argument: string,
    readonly kind: 'pinned' | 'hidden',
  ) {
    super(
      kind === 'pinned'
        ? `Argument "${argument}" is pinned by the bundle to a fixed value and cannot be set by the caller`
        : `Argument "${argument}" is hidden by the bundle and cannot be set by the caller`,
    );
    this.name = 'ConcealedArgumentError';
  }
}

/**
 * The arguments sent upstream: defaults, then the caller's arguments, then the pinned values.
 * A caller that supplies a pinned or hidden argument is refused (ConcealedArgumentError), so a
 * pinned value can never be overridden, not even silently.
 */
export function upstreamArguments(override: ToolOverride, callerArgs: Record<string, unknown>): Record<string, unknown> {
  const concealed = concealedArguments(override);
  if (concealed.size) {
    for (const name of Object.keys(callerArgs)) {
      if (!concealed.has(name)) continue;
      throw new ConcealedArgumentError(name, override.pinned && Object.hasOwn(override.pinned, name) ? 'pinned' : 'hidden');
    }
  }
  if (!override.defaults && !override.pinned) return callerArgs;
  return { ...(override.defaults ?? {}), ...callerArgs, ...(override.pinned ?? {}) };
}

/**
 * Checks an override against the tool's input schema: `pinned` and `defaults` keys must be
 * properties of the schema, and a hidden argument must not be required unless it is pinned or
 * defaulted. Returns the problems (empty when fine), located under `locPrefix`.
 */
export function overrideSchemaIssues(tool: CatalogTool, override: ToolOverride, locPrefix: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const properties = (tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {};
  const required = new Set(Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : []);
  for (const field of ['pinned', 'defaults'] as const) {
    for (const key of Object.keys(override[field] ?? {})) {
      if (!(key in properties)) {
        issues.push({
          loc: [...locPrefix, field, key],
          msg: `"${key}" is not an argument of tool ${tool.name}`,
          type: 'value_error',
          input: key,
          ctx: { arguments: Object.keys(properties) },
        });
      }
    }
  }
  (override.hidden_arguments ?? []).forEach((name, i) => {
    if (!(name in properties)) {
      issues.push({
        loc: [...locPrefix, 'hidden_arguments', i],
        msg: `"${name}" is not an argument of tool ${tool.name}`,
        type: 'value_error',
        input: name,
        ctx: {},
      });
    } else if (required.has(name) && !(name in (override.pinned ?? {})) && !(name in (override.defaults ?? {}))) {
      issues.push({
        loc: [...locPrefix, 'hidden_arguments', i],
        msg: `"${name}" is required by tool ${tool.name}; pin it or give it a default before hiding it`,
        type: 'value_error',
        input: name,
        ctx: {},
      });
    }
  });
  return issues;
}

/** Drops absent/undefined fields so the stored override holds only what was set. */
export function normaliseOverride(input: ToolOverride | undefined | null): ToolOverride {
  const out: ToolOverride = {};
  if (!input) return out;
  for (const [k, v] of Object.entries(input) as [keyof ToolOverride, unknown][]) {
    if (v === undefined || v === null) continue;
    (out as Record<string, unknown>)[k] = v;
  }
  if (out.enabled === true) delete out.enabled;
  return out;
}

/** The override as the contract shows it: every field present, null meaning "upstream value". */
export function overrideView(o: ToolOverride): Required<ToolOverride> {
  return {
    name: o.name ?? null,
    title: o.title ?? null,
    description: o.description ?? null,
    annotations: o.annotations ?? null,
    defaults: o.defaults ?? null,
    pinned: o.pinned ?? null,
    hidden_arguments: o.hidden_arguments ?? null,
    enabled: o.enabled ?? true,
  };
}
