import { createHash } from 'node:crypto';

/** One argument of a tool as its input schema describes it. */
export interface ToolArgumentText {
  readonly name: string;
  readonly description: string;
}

/**
 * A tool as a caller sees it (overrides applied), reduced to the texts search works on. The
 * endpoint builds one per (bundle, catalog tool) it serves and feeds it to the index.
 */
export interface ToolDocument {
  /** Stable key: {@link toolDocumentId} of the bundle and the catalog tool. */
  readonly id: string;
  /** The name the caller calls the tool by (override applied, disambiguated by the endpoint). */
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  /** Display name of the upstream server. */
  readonly serverName: string;
  /** Arguments of the published input schema (pinned and hidden ones already removed). */
  readonly arguments: readonly ToolArgumentText[];
  /** Extra wording for search written by the LLM provider at index time (description-expansion.ts). */
  readonly expansion?: string;
}

/** The document key of a catalog tool served through a bundle. */
export function toolDocumentId(bundleId: string, toolId: string): string {
  return `${bundleId}:${toolId}`;
}

/** Longest description kept per argument; schemas sometimes embed whole manuals. */
const MAX_ARGUMENT_DESCRIPTION = 300;
/** Most arguments read from one schema (a schema with thousands of properties is hostile). */
const MAX_ARGUMENTS = 64;
/** Deepest nesting of object properties read. */
const MAX_DEPTH = 2;

/**
 * The arguments of an input schema: top-level properties and, up to two levels down, the
 * properties of nested objects and of array items (named `parent.child`), each with its
 * description. Anything that is not a well-formed schema object is skipped, never thrown on.
 */
export function argumentsOfSchema(schema: unknown): ToolArgumentText[] {
  const out: ToolArgumentText[] = [];
  const visit = (node: unknown, prefix: string, depth: number) => {
    if (!isRecord(node) || depth > MAX_DEPTH) return;
    const properties = node.properties;
    if (isRecord(properties)) {
      for (const [name, prop] of Object.entries(properties)) {
        if (out.length >= MAX_ARGUMENTS) return;
        const description = isRecord(prop) && typeof prop.description === 'string' ? prop.description : '';
        out.push({ name: prefix + name, description: description.slice(0, MAX_ARGUMENT_DESCRIPTION) });
        if (isRecord(prop)) {
          visit(prop, `${prefix}${name}.`, depth + 1);
          if (isRecord(prop.items)) visit(prop.items, `${prefix}${name}.`, depth + 1);
        }
      }
    }
  };
  visit(schema, '', 0);
  return out;
}

/** The fields of a document as the keyword index stores them. */
export interface ToolDocumentFields {
  id: string;
  name: string;
  title: string;
  description: string;
  argumentNames: string;
  argumentDescriptions: string;
  serverName: string;
  expansion: string;
}

/** Splits a document into the separately boosted fields of the keyword index. */
export function documentFields(doc: ToolDocument): ToolDocumentFields {
  return {
    id: doc.id,
    name: doc.name,
    title: doc.title ?? '',
    description: doc.description ?? '',
    argumentNames: doc.arguments.map((a) => a.name).join(' '),
    argumentDescriptions: doc.arguments.map((a) => a.description).join(' \n '),
    serverName: doc.serverName,
    expansion: doc.expansion ?? '',
  };
}

/**
 * The text embedded for semantic search: what a person reads about the tool, in one passage.
 * Its content hash decides whether the tool needs embedding again.
 */
export function embeddingText(doc: ToolDocument): string {
  const lines = [doc.title && doc.title !== doc.name ? `${doc.name} (${doc.title})` : doc.name];
  if (doc.description) lines.push(doc.description);
  if (doc.arguments.length) {
    lines.push(`Arguments: ${doc.arguments.map((a) => (a.description ? `${a.name}: ${a.description}` : a.name)).join('; ')}`);
  }
  lines.push(`Server: ${doc.serverName}`);
  return lines.join('\n');
}

/** Key of an embedding: SHA-256 of the model and the text, so a model change re-embeds everything. */
export function contentHash(model: string, text: string): string {
  return createHash('sha256').update(model).update('\u0000').update(text).digest('hex');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Builds the document of a tool as the caller sees it: pass the effective (override-applied,
 * published) name, title, description and input schema, e.g. from `effectiveTool()`.
 */
export function toToolDocument(input: {
  id: string;
  name: string;
  title?: string | null;
  description?: string | null;
  serverName: string;
  inputSchema: unknown;
}): ToolDocument {
  return {
    id: input.id,
    name: input.name,
    title: input.title ?? null,
    description: input.description ?? null,
    serverName: input.serverName,
    arguments: argumentsOfSchema(input.inputSchema),
  };
}
