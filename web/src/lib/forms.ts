import { ApiError, errorMessage } from './api.js';

/** Errors of a form: per field (keyed as the form names them) and the rest, for the form's banner. */
export interface FormErrors {
  fields: Record<string, string>;
  form: string | null;
}

export const NO_ERRORS: FormErrors = { fields: {}, form: null };

/**
 * Spreads an API error over a form's fields. A 422 issue goes to the field its `loc` names
 * (`['body', 'config', 'discovery_url']` → `config.discovery_url`, or the longest field prefix
 * the form has, e.g. `pinned` for `['body', 'pinned', 'foo']`); what matches no field, and every
 * other error, goes to the form banner.
 */
export function formErrors(err: unknown, fields: readonly string[]): FormErrors {
  if (!(err instanceof ApiError) || err.status !== 422) return { fields: {}, form: errorMessage(err) };
  const out: Record<string, string> = {};
  const rest: string[] = [];
  const byLength = [...fields].sort((a, b) => b.length - a.length);
  for (const issue of err.issues) {
    const path = issue.loc.slice(1).map(String);
    const dotted = path.join('.');
    const field = byLength.find((f) => dotted === f || dotted.startsWith(`${f}.`));
    const where = field && dotted !== field ? ` (${path.slice(field.split('.').length).join('.')})` : '';
    if (field) out[field] = out[field] ? `${out[field]}; ${issue.msg}${where}` : `${issue.msg}${where}`;
    else rest.push(path.length ? `${dotted}: ${issue.msg}` : issue.msg);
  }
  return {
    fields: out,
    form: rest.length ? rest.join('; ') : Object.keys(out).length ? 'Please correct the highlighted fields.' : err.message,
  };
}

/** Lines of a textarea as a list: trimmed, blanks dropped. */
export function lines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parses a JSON object typed by an admin; throws a message naming the field when it is not one. */
export function parseJsonObject(text: string, label: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new Error(`${label} must be a JSON object, e.g. {"key": "value"}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${label} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** A whole number from an input, or null when empty. NaN stays NaN so the API can reject it with its loc. */
export function intOrNull(text: string): number | null {
  const t = text.trim();
  return t === '' ? null : Number(t);
}
