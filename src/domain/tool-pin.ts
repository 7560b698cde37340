import { hash } from 'node:crypto';

/**
 * Pinned tool definitions: what of a tool an admin approves when they select it, and its hash.
 * The effective definition a model reads is the description, the input schema and the
 * annotations; a change of any of them after approval (a "rug pull") withholds the tool until an
 * admin approves the new one. The hash is of a canonical JSON form (object keys sorted), so the
 * same definition always hashes alike whatever order the upstream sends its keys in.
 */

/** The part of a tool definition that is pinned. */
export interface PinnedDefinition {
  readonly description: string | null;
  readonly input_schema: unknown;
  readonly annotations: unknown;
}

/** JSON with object keys in sorted order (arrays keep theirs). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 (hex) of a definition's canonical form. */
export function definitionHash(definition: PinnedDefinition): string {
  return hash(
    'sha256',
    canonicalJson({ description: definition.description, input_schema: definition.input_schema, annotations: definition.annotations }),
    'hex',
  );
}

/** The fields of two definitions that differ. */
export function changedFields(a: PinnedDefinition, b: PinnedDefinition): ('description' | 'input_schema' | 'annotations')[] {
  return (['description', 'input_schema', 'annotations'] as const).filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]));
}
