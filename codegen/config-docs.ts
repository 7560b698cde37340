/**
 * Renders docs/configuration.md from `SETTINGS` in src/config.ts, the one list of environment
 * variables the server reads. The page is generated so that the documentation cannot drift from
 * the code: `npm run codegen` writes it, `npm run codegen:check` fails when the committed page
 * differs from what the table renders (codegen/generate.ts runs both).
 *
 * Each row shows the variable, its default, the values it accepts (read from the setting's JSON
 * schema, the same schema that validates the environment at start) and the setting's `doc` text.
 * The page is formatted with the repository's Prettier settings, so `prettier --check` passes on it.
 */
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { SETTINGS } from '../src/config.js';

/** Where the page lives, relative to the repository root. */
export const CONFIG_DOCS_PATH = 'docs/configuration.md';

type Schema = Record<string, unknown>;

const BANNER = [
  '<!-- DO NOT EDIT. Generated from SETTINGS in src/config.ts by codegen/config-docs.ts. -->',
  '<!-- Regenerate with `npm run codegen`; CI runs `npm run codegen:check` to catch drift. -->',
];

const INTRO = [
  '# Configuration',
  '',
  'Toolgate reads its configuration from environment variables, once, at start (`src/config.ts` is the',
  'only reader of `process.env`). Every value is validated against the schema shown below; when any is',
  'invalid the process lists every problem (never the values, some of which are secrets) and exits with',
  'code 2. An unset or empty variable takes its default.',
  '',
  'Settings that admins change at run time (log retention, rate-limit and timeout defaults, origin and',
  'outbound allow-lists) live in the database instead, under `PUT /api/v1/settings/general`; where a',
  'variable below and a general setting overlap, the variable supplies the default the setting starts',
  'from.',
  '',
];

const OUTRO = [
  '',
  'Lists (`TOOLGATE_ALLOWED_ORIGINS`, `TOOLGATE_OUTBOUND_ALLOWLIST`) are comma-separated; spaces around',
  'the commas are ignored.',
  '',
  'To add a setting, add a row to `SETTINGS` and a field to `Config` in `src/config.ts`, then run',
  '`npm run codegen` to regenerate this page (see CONTRIBUTING.md).',
];

/** A cell's text, safe inside a Markdown table row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function code(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

function defaultOf(schema: Schema): string {
  const value = schema.default;
  if (value === undefined) return 'unset';
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : code(value.join(','));
  return code(value);
}

function accepted(schema: Schema): string {
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map(code).join(', ');
  if (schema.type === 'integer') {
    const min = schema.minimum as number | undefined;
    const max = schema.maximum as number | undefined;
    if (min !== undefined && max !== undefined) return `integer, ${min}–${max}`;
    if (min !== undefined) return `integer ≥ ${min}`;
    return 'integer';
  }
  if (schema.type === 'array') {
    const items = (schema.items ?? {}) as Schema;
    return items.pattern ? `comma-separated, each matching ${code(items.pattern)}` : 'comma-separated list';
  }
  if (typeof schema.pattern === 'string') return `matches ${code(schema.pattern)}`;
  return 'text';
}

/** The page's Markdown, formatted as Prettier would format it. */
export async function renderConfigDocs(root: string): Promise<string> {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | ${cell(defaultOf(s.schema))} | ${cell(accepted(s.schema))} | ${cell(s.doc)} |`);
  const markdown = [
    ...BANNER,
    '',
    ...INTRO,
    '| Variable | Default | Accepted values | Meaning |',
    '| --- | --- | --- | --- |',
    ...rows,
    ...OUTRO,
    '',
  ].join('\n');
  const options = (await resolveConfig(path.join(root, CONFIG_DOCS_PATH))) ?? {};
  return format(markdown, { ...options, parser: 'markdown' });
}
