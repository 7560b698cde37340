/**
 * The pure rules of configuration documents (configuration as code): how a secret is written as
 * a reference instead of its value, how references are read back, and the canonical form values
 * are compared in (an import changes only what differs, so applying a document twice changes
 * nothing). Used by the export/import service and by the CLI, which resolves `${env:NAME}`
 * references from its own environment before a document reaches the server.
 */

/**
 * A secret value kept by this instance: `secret://servers/<server>/<secret_env|headers>/<name>`,
 * `secret://servers/<server>/oauth/client_secret` or `secret://settings/registry_token`.
 */
export type StoredSecretReference =
  | { readonly kind: 'server'; readonly server: string; readonly field: 'secret_env' | 'headers' | 'oauth'; readonly key: string }
  | { readonly kind: 'registry_token' };

const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]{0,255})\}$/;
const SECRET_SCHEME = 'secret://';

/** `secret://…` naming a stored secret value. */
export function storedSecretReference(ref: StoredSecretReference): string {
  if (ref.kind === 'registry_token') return `${SECRET_SCHEME}settings/registry_token`;
  return `${SECRET_SCHEME}servers/${encodeURIComponent(ref.server)}/${ref.field}/${encodeURIComponent(ref.key)}`;
}

/** The stored secret a `secret://` value names; undefined when the value is not one, `null` when it is malformed. */
export function parseStoredSecretReference(value: string): StoredSecretReference | null | undefined {
  if (!value.startsWith(SECRET_SCHEME)) return undefined;
  const rest = value.slice(SECRET_SCHEME.length);
  if (rest === 'settings/registry_token') return { kind: 'registry_token' };
  const m = /^servers\/([^/]+)\/(?:(secret_env|headers)\/([^/]+)|(oauth)\/(client_secret))$/.exec(rest);
  if (!m) return null;
  try {
    const field = (m[2] ?? m[4]) as 'secret_env' | 'headers' | 'oauth';
    return { kind: 'server', server: decodeURIComponent(m[1]!), field, key: decodeURIComponent(m[3] ?? m[5]!) };
  } catch {
    return null;
  }
}

/** The variable an `${env:NAME}` value names; undefined when the value is not one. */
export function envReferenceName(value: string): string | undefined {
  return ENV_REFERENCE.exec(value)?.[1];
}

/** `${env:NAME}`. */
export function envReference(name: string): string {
  return `\${env:${name}}`;
}

/** The variable an export in `env` mode names for a secret: `TOOLGATE_SECRET_<SERVER>_<KEY>` in upper snake case. */
export function envNameFor(...parts: string[]): string {
  const slug = parts
    .map((p) =>
      p
        .replace(/[^A-Za-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '')
        .toUpperCase(),
    )
    .filter(Boolean)
    .join('_');
  return `TOOLGATE_SECRET_${slug || 'VALUE'}`.slice(0, 256);
}

/** A JSON value with object keys sorted, for comparing stored and desired values whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * The secret positions of a parsed document: `servers[i].secret_env.*`, `servers[i].headers.*`,
 * `servers[i].oauth.client_secret`, `settings.registry_token`.
 */
function secretSlots(doc: unknown): { holder: Record<string, unknown>; key: string; loc: (string | number)[] }[] {
  const out: { holder: Record<string, unknown>; key: string; loc: (string | number)[] }[] = [];
  if (!doc || typeof doc !== 'object') return out;
  const d = doc as Record<string, unknown>;
  if (Array.isArray(d.servers)) {
    d.servers.forEach((server: unknown, i) => {
      if (!server || typeof server !== 'object') return;
      for (const field of ['secret_env', 'headers'] as const) {
        const map = (server as Record<string, unknown>)[field];
        if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
        for (const key of Object.keys(map)) out.push({ holder: map as Record<string, unknown>, key, loc: ['servers', i, field, key] });
      }
      const oauth = (server as Record<string, unknown>).oauth;
      if (oauth && typeof oauth === 'object' && typeof (oauth as Record<string, unknown>).client_secret === 'string')
        out.push({ holder: oauth as Record<string, unknown>, key: 'client_secret', loc: ['servers', i, 'oauth', 'client_secret'] });
    });
  }
  if (d.settings && typeof d.settings === 'object' && 'registry_token' in d.settings)
    out.push({ holder: d.settings as Record<string, unknown>, key: 'registry_token', loc: ['settings', 'registry_token'] });
  return out;
}

/**
 * Replaces every `${env:NAME}` in a secret position of a parsed document by the variable's value
 * (in place). Answers the locations whose variable is not set, for the caller to report.
 */
export function resolveEnvReferences(
  doc: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { missing: { loc: (string | number)[]; name: string }[] } {
  const missing: { loc: (string | number)[]; name: string }[] = [];
  for (const slot of secretSlots(doc)) {
    const value = slot.holder[slot.key];
    if (typeof value !== 'string') continue;
    const name = envReferenceName(value);
    if (name === undefined) continue;
    const resolved = env[name];
    if (resolved === undefined) missing.push({ loc: slot.loc, name });
    else slot.holder[slot.key] = resolved;
  }
  return { missing };
}
