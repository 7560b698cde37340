import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from './ai-types.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, validateFormats: true }));
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** The ajv validator of a schema (compiled once per schema object). Throws on a schema ajv rejects. */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

/** Outcome of reading a model's answer as JSON against a schema. */
export type JsonAnswer = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Reads a JSON answer leniently where models are sloppy (a ```json fence, prose around one object)
 * and strictly where it matters (the schema). `problem` says what to fix, for the repair round.
 */
export function readJsonAnswer(text: string, validate: ValidateFunction): JsonAnswer {
  const parsed = parseLenient(text);
  if (parsed === undefined) {
    const preview = text.trim().slice(0, 80).replace(/\s+/g, ' ');
    return { ok: false, problem: text.trim() ? `the reply is not valid JSON (it starts with "${preview}")` : 'the reply was empty' };
  }
  return checkJsonValue(parsed, validate);
}

/** Validates an already parsed value (Anthropic tool input). */
export function checkJsonValue(value: unknown, validate: ValidateFunction): JsonAnswer {
  if (validate(value)) return { ok: true, value };
  const errors = (validate.errors ?? [])
    .slice(0, 12)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    );
  return { ok: false, problem: `the JSON does not satisfy the schema: ${errors.join('; ')}` };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parseLenient(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const direct = tryParse(trimmed);
  if (direct !== undefined) return direct;
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/i.exec(trimmed);
  if (fenced) {
    const inner = tryParse(fenced[1]!.trim());
    if (inner !== undefined) return inner;
  }
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = trimmed.indexOf(open);
    const end = trimmed.lastIndexOf(close);
    if (start >= 0 && end > start) {
      const inner = tryParse(trimmed.slice(start, end + 1));
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** The instruction that asks for JSON (added even where the vendor enforces the schema: models follow both). */
export function jsonInstruction(schema: JsonSchema): string {
  return [
    'Reply with one JSON value only: no prose, no Markdown code fence.',
    'It must satisfy this JSON Schema:',
    JSON.stringify(schema),
  ].join('\n');
}

/** The user turn of the repair round. */
export function repairInstruction(problem: string): string {
  return `Your previous reply cannot be used: ${problem}. Reply again with only the corrected JSON value that satisfies the schema.`;
}
