/**
 * OpenAPI → MCP tools: the deterministic conversion of an OpenAPI 3.0/3.1 document (already
 * dereferenced) into one MCP tool per operation, the HTTP request a tool call stands for, and the
 * MCP result an HTTP answer becomes. Pure: no I/O; the OpenAPI bridge process
 * (src/openapi-bridge.ts) does the fetching under the outbound-address policy.
 *
 * - Input schema: one property per path, query and header parameter (named as the parameter;
 *   a name used twice gets its location as a prefix, `query_id`) and `body` for a JSON request
 *   body; required ones are required.
 * - Output schema: the JSON schema of the first success response (2xx); a schema that is not an
 *   object is wrapped as `{ result }`, as MCP requires an object.
 * - OpenAPI 3.0 schema dialect is brought to JSON Schema (`nullable` → a `null` type; OpenAPI-only
 *   keywords dropped); a reference left in place by a cycle becomes `{}` (any value).
 * - Path parameters are percent-encoded as one segment; `.`, `..` and empty values are refused,
 *   since a URL parser resolves dot segments (also percent-encoded ones) and would leave the path.
 */

export type JsonObject = Record<string, unknown>;

export type ParamLocation = 'path' | 'query' | 'header';

export interface OperationParam {
  readonly name: string;
  readonly in: ParamLocation;
  readonly required: boolean;
  /** The tool argument that carries it. */
  readonly arg: string;
}

export interface OperationTool {
  readonly name: string;
  readonly title: string | null;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema: JsonObject | null;
  /** The success response is not an object: structured content is `{ result: <response> }`. */
  readonly wrapOutput: boolean;
  readonly annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: true };
  readonly method: string;
  readonly path: string;
  readonly params: readonly OperationParam[];
  /** The tool argument carrying the JSON request body, when the operation takes one. */
  readonly bodyArg: string | null;
}

export interface HttpRequestPlan {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body: string | null;
}

export class OpenApiDocumentError extends Error {}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Keywords of the OpenAPI 3.0 schema object that JSON Schema does not have. */
const OPENAPI_ONLY = new Set(['nullable', 'discriminator', 'xml', 'externalDocs', 'example']);
const MAX_SCHEMA_DEPTH = 32;
const MAX_DESCRIPTION = 2000;

/** `3.0` or `3.1`, or throws: the documents this converter reads. */
export function openApiVersion(doc: unknown): '3.0' | '3.1' {
  const v = (doc as { openapi?: unknown } | null)?.openapi;
  if (typeof v === 'string' && /^3\.0\.\d+/.test(v)) return '3.0';
  if (typeof v === 'string' && /^3\.1\.\d+/.test(v)) return '3.1';
  throw new OpenApiDocumentError('Not an OpenAPI 3.0 or 3.1 document (its "openapi" field names another version)');
}

/** A schema of the document as JSON Schema (2020-12 compatible), bounded in depth. */
export function toJsonSchema(schema: unknown, version: '3.0' | '3.1', depth = 0, seen: ReadonlySet<object> = new Set()): JsonObject {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return {};
  // A cycle (the dereferencer links recursive schemas into loops) or a reference left in place.
  if (depth > MAX_SCHEMA_DEPTH || seen.has(schema) || '$ref' in schema) return {};
  const inner = new Set(seen).add(schema);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (version === '3.0' && OPENAPI_ONLY.has(key)) continue;
    if (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions') {
      out[key] = Object.fromEntries(
        Object.entries((value as JsonObject | null) ?? {}).map(([k, v]) => [k, toJsonSchema(v, version, depth + 1, inner)]),
      );
    } else if (['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'].includes(key)) {
      out[key] =
        typeof value === 'boolean'
          ? value
          : Array.isArray(value)
            ? value.map((v) => toJsonSchema(v, version, depth + 1, inner))
            : toJsonSchema(value, version, depth + 1, inner);
    } else if (['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key) && Array.isArray(value)) {
      out[key] = value.map((v) => toJsonSchema(v, version, depth + 1, inner));
    } else out[key] = value;
  }
  if (version === '3.0' && (schema as { nullable?: unknown }).nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

function isJsonMedia(type: string): boolean {
  const t = type.split(';')[0]!.trim().toLowerCase();
  return t === 'application/json' || t.endsWith('+json');
}

function jsonContent(content: unknown): JsonObject | undefined {
  if (!content || typeof content !== 'object') return undefined;
  const key = Object.keys(content).find(isJsonMedia);
  return key ? ((content as Record<string, JsonObject>)[key] ?? undefined) : undefined;
}

/** A name fit for an MCP tool or argument: letters, digits, `_`, `-`, `.`; at most 128 characters. */
function toolName(raw: string): string {
  const name = raw
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128);
  return name || 'operation';
}

/** One tool per operation of a dereferenced document (operations without a usable shape are listed as skipped). */
export function operationTools(doc: JsonObject): { tools: OperationTool[]; skipped: string[] } {
  const version = openApiVersion(doc);
  const paths = (doc.paths ?? {}) as Record<string, JsonObject>;
  const tools: OperationTool[] = [];
  const skipped: string[] = [];
  const names = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    if (!item || typeof item !== 'object') continue;
    for (const method of METHODS) {
      const op = item[method] as JsonObject | undefined;
      if (!op || typeof op !== 'object') continue;
      const label = `${method.toUpperCase()} ${path}`;
      const params = [...((item.parameters as JsonObject[] | undefined) ?? []), ...((op.parameters as JsonObject[] | undefined) ?? [])];
      // Operation-level parameters override path-level ones of the same name and location.
      const byKey = new Map<string, JsonObject>();
      for (const p of params) if (p && typeof p === 'object') byKey.set(`${String(p.in)}:${String(p.name)}`, p);
      const usable = [...byKey.values()].filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header');
      const body = op.requestBody as JsonObject | undefined;
      const bodyMedia = body ? jsonContent(body.content) : undefined;
      if (body && !bodyMedia && body.required === true) {
        skipped.push(`${label}: its request body is not JSON`);
        continue;
      }
      const properties: Record<string, JsonObject> = {};
      const required: string[] = [];
      const taken = new Set<string>();
      const opParams: OperationParam[] = [];
      const counts = new Map<string, number>();
      for (const p of usable) counts.set(String(p.name), (counts.get(String(p.name)) ?? 0) + 1);
      for (const p of usable) {
        const name = String(p.name);
        const arg = toolName((counts.get(name) ?? 0) > 1 || name === 'body' ? `${String(p.in)}_${name}` : name);
        if (taken.has(arg)) continue;
        taken.add(arg);
        const schema = toJsonSchema(p.schema ?? jsonContent(p.content)?.schema, version);
        const description = typeof p.description === 'string' ? p.description : undefined;
        properties[arg] = { ...schema, ...(description ? { description } : {}) };
        const isRequired = p.in === 'path' || p.required === true;
        if (isRequired) required.push(arg);
        opParams.push({ name, in: p.in as ParamLocation, required: isRequired, arg });
      }
      let bodyArg: string | null = null;
      if (bodyMedia) {
        bodyArg = taken.has('body') ? 'request_body' : 'body';
        const schema = toJsonSchema(bodyMedia.schema, version);
        const description = typeof body?.description === 'string' ? body.description : undefined;
        properties[bodyArg] = { ...schema, ...(description ? { description } : {}) };
        if (body?.required === true) required.push(bodyArg);
      }
      const responses = (op.responses ?? {}) as Record<string, JsonObject>;
      const success = Object.keys(responses)
        .filter((code) => /^2(\d\d|XX)$/i.test(code))
        .sort()
        .map((code) => jsonContent(responses[code]?.content))
        .find((media) => media?.schema);
      let outputSchema: JsonObject | null = null;
      let wrapOutput = false;
      if (success) {
        const schema = toJsonSchema(success.schema, version);
        const isObject = schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object');
        wrapOutput = !isObject;
        outputSchema = isObject ? schema : { type: 'object', properties: { result: schema }, required: ['result'] };
      }
      let name = toolName(typeof op.operationId === 'string' ? op.operationId : `${method}_${path}`);
      for (let i = 2; names.has(name); i++) name = `${name.slice(0, 120)}_${i}`;
      names.add(name);
      const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
      const text = [summary, typeof op.description === 'string' ? op.description.trim() : ''].filter(Boolean).join('\n\n');
      tools.push({
        name,
        title: summary ? summary.slice(0, 200) : null,
        description: (text || label).slice(0, MAX_DESCRIPTION),
        inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) },
        outputSchema,
        wrapOutput,
        annotations: {
          readOnlyHint: method === 'get' || method === 'head' || method === 'options',
          destructiveHint: method === 'delete',
          idempotentHint: method !== 'post' && method !== 'patch',
          openWorldHint: true,
        },
        method: method.toUpperCase(),
        path,
        params: opParams,
        bodyArg,
      });
    }
  }
  return { tools, skipped };
}

/** A query or header value as text: arrays joined by commas (headers) or repeated (queries), objects as JSON. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/**
 * The HTTP request a call of `tool` with `args` stands for, against `baseUrl`. Throws a message
 * fit for the caller when an argument cannot be sent (a missing or unsafe path parameter).
 */
export function requestPlan(tool: OperationTool, args: JsonObject, baseUrl: string): HttpRequestPlan {
  let path = tool.path;
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  for (const p of tool.params) {
    const value = args[p.arg];
    if (value === undefined || value === null) {
      if (p.required) throw new OpenApiDocumentError(`The argument "${p.arg}" is required`);
      continue;
    }
    if (p.in === 'path') {
      const raw = text(value);
      if (raw === '' || raw === '.' || raw === '..')
        throw new OpenApiDocumentError(`The argument "${p.arg}" may not be empty, "." or ".." (it is a path segment)`);
      path = path.split(`{${p.name}}`).join(encodeURIComponent(raw));
    } else if (p.in === 'query') {
      for (const v of Array.isArray(value) ? value : [value]) query.push([p.name, text(v)]);
    } else {
      const raw = Array.isArray(value) ? value.map(text).join(',') : text(value);
      if (/[\r\n\0]/.test(raw)) throw new OpenApiDocumentError(`The argument "${p.arg}" may not contain line breaks`);
      headers[p.name] = raw;
    }
  }
  const base = new URL(baseUrl);
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  url.search = '';
  for (const [k, v] of [...base.searchParams.entries(), ...query]) url.searchParams.append(k, v);
  url.hash = '';
  // Percent-encoded segments cannot leave the base path; a check keeps it so whatever the template holds.
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname.replace(/\/+$/, '')))
    throw new OpenApiDocumentError('The request would leave the base URL');
  let body: string | null = null;
  if (tool.bodyArg && args[tool.bodyArg] !== undefined) {
    body = JSON.stringify(args[tool.bodyArg]);
    headers['content-type'] = 'application/json';
  }
  headers.accept = 'application/json, */*;q=0.5';
  return { method: tool.method, url, headers, body };
}

/** An MCP `tools/call` result. */
export interface ToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: JsonObject;
  isError?: boolean;
}

/** The MCP result of an HTTP answer: 2xx → content (and structured content for JSON), else an error with status and body. */
export function toolResult(tool: OperationTool, status: number, contentType: string, bodyText: string, truncated: boolean): ToolResult {
  const shown = truncated ? `${bodyText}\n[response cut at the size limit]` : bodyText;
  if (status < 200 || status > 299) {
    return { isError: true, content: [{ type: 'text', text: `HTTP ${status}${shown ? `: ${shown}` : ''}` }] };
  }
  if (truncated) return { isError: true, content: [{ type: 'text', text: `HTTP ${status}: the response exceeds the size limit` }] };
  if (!isJsonMedia(contentType) || !bodyText) return { content: [{ type: 'text', text: bodyText }] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return { content: [{ type: 'text', text: bodyText }] };
  }
  const plainObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  const structured = tool.wrapOutput || !plainObject ? { result: parsed } : (parsed as JsonObject);
  return { content: [{ type: 'text', text: bodyText }], structuredContent: structured };
}
