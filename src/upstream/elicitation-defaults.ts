/**
 * SEP-1034 (MCP 2025-11-25): a form-mode elicitation's `requestedSchema` may give each primitive
 * property a `default`, and the client applies the defaults of fields the user left out when it
 * accepts. The gateway relays the form to its caller, who may not know the rule (or left the
 * fields out on purpose, accepting the form as offered): the defaults are applied on the way back
 * up, so the upstream gets the values its own form promised.
 */

/** Primitive types a form field may have (MCP `PrimitiveSchemaDefinition`). */
const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The caller's answer to `elicitation/create` with the defaults of `params.requestedSchema` filled
 * in for fields an accepted `content` omits. Anything else (declined, cancelled, URL mode, no
 * schema, a default of the wrong type) comes back unchanged; a field the caller set is never touched.
 */
export function withElicitationDefaults(params: unknown, result: unknown): unknown {
  if (!isObject(params) || !isObject(result) || result.action !== 'accept') return result;
  if (params.mode !== undefined && params.mode !== 'form') return result;
  const schema = params.requestedSchema;
  if (!isObject(schema) || !isObject(schema.properties)) return result;
  const content = isObject(result.content) ? result.content : {};
  let filled: Record<string, unknown> | undefined;
  for (const [name, field] of Object.entries(schema.properties)) {
    if (name in content || !isObject(field) || !fits(field, field.default)) continue;
    filled ??= { ...content };
    filled[name] = field.default;
  }
  return filled ? { ...result, content: filled } : result;
}

/** Whether `value` is a default the field can hold (its type, and one of its enum values if it has them). */
function fits(field: Record<string, unknown>, value: unknown): boolean {
  if (value === undefined || typeof field.type !== 'string' || !PRIMITIVE.has(field.type)) return false;
  if (Array.isArray(field.enum) && !field.enum.includes(value)) return false;
  switch (field.type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === 'number' && Number.isFinite(value);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
