/**
 * The servers step of a configuration import: a server the document names is registered when new
 * and brought to the document's fields when it differs, declaratively (what an entry leaves out
 * is cleared). Secrets come as values or as `secret://` references to values this instance holds,
 * resolved here; sealed values are compared opened, so an unchanged secret writes nothing. The
 * field rules are the server registry's (its URL and header checks, its OAuth settings), with
 * their problems placed inside the document.
 */
import { randomUUID } from 'node:crypto';
import { RequestValidationError, type ValidationIssue } from '../../../errors.js';
import { canonicalJson, envReferenceName, parseStoredSecretReference } from '../../../domain/config-document.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import type { DbServerRow } from '../../../stores/servers-store.js';
import { oauthColumns, openOAuthSecret } from '../../catalog/server-oauth-settings.js';
import type { ServersService } from '../../catalog/servers-service.js';
import { at, DOC_LOC, envIssue, sameName, type DocServer, type ImportRun } from './import-run.js';

/** What the servers step uses besides the transaction: the registry's field checks and sealing, and the secret box. */
interface ServerDeps {
  servers: Pick<ServersService, 'checkConnectionFields' | 'seal' | 'open'>;
  secrets: SecretBox;
}

/** Servers: registered when new, brought to the document's fields when they differ. Answers every server by lowercase name. */
export async function applyServers(deps: ServerDeps, { stores, doc, out, after }: ImportRun): Promise<Map<string, DbServerRow>> {
  const existing = await stores.servers.all();
  const byName = new Map(existing.map((r) => [r.name.toLowerCase(), r]));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const plans: {
    i: number;
    entry: DocServer;
    secretEnv: Record<string, string>;
    headers: Record<string, string>;
    oauthSecret: string | null;
  }[] = [];
  (doc.servers ?? []).forEach((entry, i) => {
    const key = entry.name.toLowerCase();
    if (seen.has(key)) issues.push(at(['servers', i, 'name'], `The server "${entry.name}" is listed twice`, 'duplicate', entry.name));
    seen.add(key);
    for (const found of deps.servers.checkConnectionFields({ url: entry.url ?? null, headers: entry.headers ?? {} }))
      issues.push({ ...found, loc: [...DOC_LOC, 'servers', i, ...found.loc.slice(1)] });
    const resolve = (field: 'secret_env' | 'headers'): Record<string, string> =>
      Object.fromEntries(
        Object.entries(entry[field] ?? {}).map(([k, v]) => [k, resolveSecret(deps, v, ['servers', i, field, k], existing, issues)]),
      );
    const givenSecret = entry.oauth?.client_secret;
    const oauthSecret =
      typeof givenSecret === 'string' ? resolveSecret(deps, givenSecret, ['servers', i, 'oauth', 'client_secret'], existing, issues) : null;
    plans.push({ i, entry, secretEnv: resolve('secret_env'), headers: resolve('headers'), oauthSecret });
  });
  if (issues.length) throw new RequestValidationError(issues);

  for (const { i, entry, secretEnv, headers, oauthSecret } of plans) {
    const stdio = entry.transport === 'stdio';
    // Declarative: the document holds the whole OAuth setting (what it leaves out is cleared).
    const oauth = oauthOf(deps, entry, i, oauthSecret);
    const desired = {
      name: entry.name,
      description: entry.description ?? null,
      transport: entry.transport,
      command: stdio ? (entry.command ?? null) : null,
      args: stdio ? (entry.args ?? []) : [],
      env: stdio ? (entry.env ?? {}) : {},
      cwd: stdio ? (entry.cwd ?? null) : null,
      url: stdio ? null : (entry.url ?? null),
      enabled: entry.enabled ?? true,
      call_timeout_ms: entry.call_timeout_ms ?? null,
      health_check_interval_seconds: entry.health_check_interval_seconds ?? null,
      // A sandboxed server stays sandboxed through export and import; its approved network list
      // is not in the document (an admin approves it again where the document is imported).
      sandboxed: stdio && entry.sandboxed === true,
      auth_mode: oauth.auth_mode,
      oauth_client_id: oauth.oauth_client_id,
      oauth_token_endpoint_auth_method: oauth.oauth_token_endpoint_auth_method,
      oauth_scopes: oauth.oauth_scopes,
    };
    // Not in the document (yet): a new server asks for approval of changed tool definitions, the default.
    const toolChanges = { tool_changes: 'require_approval' as const };
    const secrets = { secret_env: stdio ? secretEnv : {}, headers: stdio ? {} : headers };
    const row = byName.get(entry.name.toLowerCase());
    if (!row) {
      const created = await stores.servers.insert({
        id: randomUUID(),
        ...desired,
        ...toolChanges,
        network_approved: [],
        network_requested: null,
        secret_env_sealed: deps.servers.seal(secrets.secret_env),
        secret_env_keys: Object.keys(secrets.secret_env).sort(),
        headers_sealed: deps.servers.seal(secrets.headers),
        header_names: Object.keys(secrets.headers).sort(),
        oauth_client_secret_sealed: oauth.oauth_client_secret_sealed,
        last_error: null,
        last_connected_at: null,
        protocol_version: null,
        server_info: null,
        latency_ms: null,
      });
      byName.set(created.name.toLowerCase(), created);
      after.createdServers.push(created);
      after.touchedServers.set(created.id, { row: created, reconnect: true });
      out.push({ kind: 'server', name: created.name, action: 'create', fields: [] });
      continue;
    }
    const patch: Partial<DbServerRow> = {};
    const fields: string[] = [];
    for (const [field, value] of Object.entries(desired) as [keyof typeof desired, unknown][])
      if (canonicalJson(value) !== canonicalJson(row[field])) {
        (patch as Record<string, unknown>)[field] = value;
        fields.push(field);
      }
    if (canonicalJson(secrets.secret_env) !== canonicalJson(deps.servers.open(row.secret_env_sealed))) {
      patch.secret_env_sealed = deps.servers.seal(secrets.secret_env);
      patch.secret_env_keys = Object.keys(secrets.secret_env).sort();
      fields.push('secret_env');
    }
    if (canonicalJson(secrets.headers) !== canonicalJson(deps.servers.open(row.headers_sealed))) {
      patch.headers_sealed = deps.servers.seal(secrets.headers);
      patch.header_names = Object.keys(secrets.headers).sort();
      fields.push('headers');
    }
    // Sealed values differ at every sealing: the secret is compared opened.
    if ((oauth.oauth_client_id === null ? null : oauthSecret) !== openOAuthSecret(deps.secrets, row)) {
      patch.oauth_client_secret_sealed = oauth.oauth_client_secret_sealed;
      fields.push('oauth_client_secret');
    }
    if (!fields.length) continue;
    if (fields.some((f) => f.startsWith('oauth_') || f === 'auth_mode' || f === 'url')) after.oauthChanged.add(row.id);
    const saved = (await stores.servers.update(row.id, patch))!;
    byName.set(saved.name.toLowerCase(), saved);
    // Only a change of how to reach the upstream (or of its limits) reconnects it.
    const reconnect = fields.some((f) => f !== 'name' && f !== 'description');
    after.touchedServers.set(saved.id, { row: saved, reconnect });
    out.push({ kind: 'server', name: saved.name, action: 'update', fields: fields.sort() });
  }
  return byName;
}

/** The OAuth columns a document entry asks for (none for stdio), its 422s placed inside the document. */
function oauthOf(deps: Pick<ServerDeps, 'secrets'>, entry: DocServer, i: number, secret: string | null) {
  const stdio = entry.transport === 'stdio';
  try {
    const input = entry.oauth ? { ...entry.oauth, client_secret: secret } : undefined;
    return oauthColumns(deps.secrets, stdio ? 'none' : (entry.auth_mode ?? 'none'), input, undefined);
  } catch (err) {
    if (!(err instanceof RequestValidationError)) throw err;
    // The OAuth settings name a field `oauth.client_secret`; in the document it is two steps.
    const inDocument = (loc: readonly (string | number)[]): (string | number)[] =>
      loc.slice(1).flatMap((p): (string | number)[] => (typeof p === 'string' ? p.split('.') : [p]));
    throw new RequestValidationError(err.issues.map((found) => ({ ...found, loc: [...DOC_LOC, 'servers', i, ...inDocument(found.loc)] })));
  }
}

/** A secret value of the document: a stored value it references, or the literal value. */
function resolveSecret(
  deps: ServerDeps,
  value: string,
  loc: (string | number)[],
  servers: readonly DbServerRow[],
  issues: ValidationIssue[],
): string {
  if (envReferenceName(value) !== undefined) {
    issues.push(envIssue(loc));
    return '';
  }
  const ref = parseStoredSecretReference(value);
  if (ref === undefined) return value;
  if (ref?.kind === 'server') {
    const server = servers.find((s) => sameName(s.name, ref.server));
    if (ref.field === 'oauth') {
      const held = server ? openOAuthSecret(deps.secrets, server) : null;
      if (held !== null) return held;
      issues.push(at(loc, 'The reference names no secret this instance holds', 'secret_unresolved', value));
      return '';
    }
    const held = server ? deps.servers.open(ref.field === 'secret_env' ? server.secret_env_sealed : server.headers_sealed) : {};
    const found = Object.entries(held).find(([k]) => (ref.field === 'headers' ? sameName(k, ref.key) : k === ref.key));
    if (found) return found[1];
  }
  issues.push(at(loc, 'The reference names no secret this instance holds', 'secret_unresolved', value));
  return '';
}
