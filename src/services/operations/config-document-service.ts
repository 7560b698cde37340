/**
 * Configuration as code: the instance's general settings, servers, tool selection and bundles
 * (with their tools, order and overrides) written as one YAML document, and a document applied
 * back, declaratively, in one transaction.
 *
 * Secrets never leave as values: each is written as a reference, either to the value this
 * instance holds (`secret://…`, so a document exported and imported on the same instance changes
 * nothing) or to an environment variable (`${env:NAME}`), which only the CLI resolves, from its
 * own environment, before the document reaches this service.
 *
 * An import compares every entity with what is stored and writes only what differs; it reports
 * each change, and a dry run runs the very same writes in a transaction that is rolled back, so
 * the diff it shows is exactly what applying would do. Bundle tools name catalog tools by
 * server and upstream name. A tool a server has not offered yet (a server the same import
 * registers has not connected) is recorded as a pending catalog row, unavailable with an empty
 * schema; the server's first sync fills it in by name, keeping its id and selection, so the
 * bundle's tools appear as soon as the server connects. This file is one cohesive thing (export,
 * diff and apply of one format), hence its length.
 */
import { randomUUID } from 'node:crypto';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Document, parse as parseYaml, YAMLError } from 'yaml';
import { ConflictError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import { ConfigDocumentSchema } from '../../generated/schemas.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { CatalogView } from '../../domain/catalog.js';
import { effectiveName, normaliseOverride, overrideSchemaIssues } from '../../domain/bundle-tools.js';
import type { ToolOverride } from '../../domain/tool-override.js';
import {
  canonicalJson,
  envNameFor,
  envReference,
  envReferenceName,
  parseStoredSecretReference,
  storedSecretReference,
  type StoredSecretReference,
} from '../../domain/config-document.js';
import { hashBundleKey } from '../../live/bundles-registry.js';
import type { DbBundleRow, DbBundleToolRow } from '../../stores/bundles-store.js';
import type { DbToolRow } from '../../stores/catalog-store.js';
import type { DbGeneralSettingsRow } from '../../stores/general-settings-store.js';
import type { DbServerRow } from '../../stores/servers-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import { mintBundleKey, type BundlesService } from '../bundles/bundles-service.js';
import type { CatalogSync } from '../catalog/catalog-sync.js';
import type { ServersService } from '../catalog/servers-service.js';
import { oauthColumns, openOAuthSecret } from '../catalog/server-oauth-settings.js';
import { OPENAPI_BRIDGE_COMMAND } from '../catalog/openapi-servers.js';
import { OpenApiDocumentError, operationTools } from '../../domain/openapi-tools.js';
import { dereferenceOpenApi, parseOpenApiDocument } from '../../lib/openapi-document.js';
import type { ActivityLog } from './activity-log.js';
import type { GeneralSettingsService } from './general-settings-service.js';

type Schemas = components['schemas'];
export type ConfigDocument = Schemas['ConfigDocument'];
export type ConfigImportResult = Schemas['ConfigImportResult'];
export type ConfigChange = ConfigImportResult['changes'][number];
type DocServer = NonNullable<ConfigDocument['servers']>[number];
type DocBundle = NonNullable<ConfigDocument['bundles']>[number];
type SettingsPatch = Schemas['GeneralSettingsUpdate'];

/** How an export writes secret values. */
export type SecretMode = 'reference' | 'env';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
const validateDocument = addFormats(new Ajv({ strict: false, allErrors: true })).compile<ConfigDocument>(ConfigDocumentSchema);

/** Where a document's problems are reported: under the request body's `document`. */
const DOC_LOC = ['body', 'document'] as const;

/** The settings a document carries (every general setting but the registry token, which is a secret). */
const SETTING_FIELDS = [
  'log_retention_days',
  'activity_log_retention_days',
  'default_rate_limit_rpm',
  'mcp_session_idle_timeout_minutes',
  'upstream_call_timeout_ms',
  'health_check_interval_seconds',
  'allowed_origins',
  'outbound_allowlist',
  'registry_url',
  'oauth_client_registration',
] as const;

/** Writes a secret's reference into an export: `secret://…` or `${env:NAME}` built from `envParts`. */
type SecretWriter = (ref: StoredSecretReference, ...envParts: string[]) => string;

/** Thrown inside a dry run's transaction to roll it back, carrying what it did. */
class DryRunRollback extends Error {
  constructor(readonly changes: ConfigChange[]) {
    super('dry run');
  }
}

/** What an applied import must do once its transaction committed. */
interface AfterCommit {
  settings?: DbGeneralSettingsRow;
  createdServers: DbServerRow[];
  /** Servers whose row or tool selection changed (reload their catalog, reconnect or disconnect). */
  touchedServers: Map<string, { row: DbServerRow; reconnect: boolean }>;
  bundleIds: Set<string>;
  /** Servers whose OAuth client or URL changed: their vault connections were made for the former one. */
  oauthChanged: Set<string>;
}

export interface ImportOptions {
  readonly dryRun?: boolean | undefined;
  /** Who imports: becomes `created_by` of new bundles; null for the CLI. */
  readonly userId: string | null;
  /**
   * Whether this process serves (default): then the changes go live after the commit (servers
   * connect, bundles reach the MCP side). The CLI on a stopped installation passes false: the
   * server reads everything when it starts.
   */
  readonly live?: boolean | undefined;
}

const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Issues located inside the document. */
function at(loc: readonly (string | number)[], msg: string, type: string, input?: unknown): ValidationIssue {
  return { loc: [...DOC_LOC, ...loc], msg, type, input: input === undefined ? null : input, ctx: {} };
}

/** The JSON-pointer path of an ajv error as a `loc`. */
function ajvIssue(e: ErrorObject): ValidationIssue {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const extra = e.keyword === 'additionalProperties' ? [(e.params as { additionalProperty: string }).additionalProperty] : [];
  const required = e.keyword === 'required' ? [(e.params as { missingProperty: string }).missingProperty] : [];
  return at([...path, ...extra, ...required], e.message ?? 'invalid', e.keyword === 'additionalProperties' ? 'extra_forbidden' : e.keyword);
}

export class ConfigDocumentService {
  constructor(
    private readonly deps: {
      tx: Transactor;
      stores: Pick<Stores, 'servers' | 'catalog' | 'bundles'>;
      catalog: CatalogView;
      servers: ServersService;
      sync: CatalogSync;
      bundles: BundlesService;
      settings: GeneralSettingsService;
      secrets: SecretBox;
      clock: Clock;
      activity: ActivityLog;
      keyPrefix: string;
      /** Tells the other instances that a server's registration or catalog changed here. */
      announce?: (serverId: string) => void;
    },
  ) {}

  /** The configuration as a YAML document, with every secret as a reference (listed beside it). */
  async export(baseUrl: string | null, mode: SecretMode = 'reference'): Promise<Schemas['ConfigExport']> {
    const references: string[] = [];
    const secret: SecretWriter = (ref, ...envParts) => {
      const value = mode === 'env' ? envReference(envNameFor(...envParts)) : storedSecretReference(ref);
      references.push(value);
      return value;
    };
    const s = await this.deps.settings.get();
    const settings: SettingsPatch = Object.fromEntries(SETTING_FIELDS.map((f) => [f, s[f]])) as SettingsPatch;
    if (s.has_registry_token) settings.registry_token = secret({ kind: 'registry_token' }, 'registry_token');

    const serverRows = (await this.deps.stores.servers.all()).sort((a, b) => a.name.localeCompare(b.name));
    const toolRows = (await this.deps.stores.catalog.toolsOfServers()).filter((t) => t.skill_attachment_id === null);
    const servers = serverRows.map((row) => this.serverEntry(row, secret));
    const toolSelection: Record<string, Record<string, boolean>> = {};
    for (const row of serverRows) {
      const tools = toolRows.filter((t) => t.server_id === row.id).sort((a, b) => a.name.localeCompare(b.name));
      if (tools.length) toolSelection[row.name] = Object.fromEntries(tools.map((t) => [t.name, t.enabled]));
    }

    const openapiDocuments: Record<string, string> = {};
    for (const row of serverRows) {
      if (row.command !== OPENAPI_BRIDGE_COMMAND) continue;
      const stored = await this.deps.stores.servers.openApiDocument(row.id);
      if (stored) openapiDocuments[row.name] = stored.document;
    }
    const serverNames = new Map(serverRows.map((r) => [r.id, r.name]));
    const toolNames = new Map(toolRows.map((t) => [t.id, t.name]));
    const bundleRows = (await this.deps.stores.bundles.listAll()).sort((a, b) => a.name.localeCompare(b.name));
    const bundles: DocBundle[] = [];
    for (const row of bundleRows) {
      const tools = await this.deps.stores.bundles.tools(row.id);
      bundles.push({
        name: row.name,
        ...(row.description !== null ? { description: row.description } : {}),
        ...(row.agent_id !== null ? { agent_id: row.agent_id } : {}),
        tools: tools
          // A tool whose server is gone has no name to be found by elsewhere.
          .filter((t) => serverNames.has(t.server_id))
          .map((t) => ({
            server: serverNames.get(t.server_id)!,
            tool: toolNames.get(t.tool_id) ?? t.tool_name,
            display_order: t.display_order,
            ...(Object.keys(t.override ?? {}).length ? { override: t.override as Schemas['BundleToolOverride'] } : {}),
          })),
      });
    }

    const body: ConfigDocument = {
      toolgate_config: 1,
      ...(baseUrl ? { exported_from: baseUrl } : {}),
      exported_at: this.deps.clock.now().toISOString(),
      settings,
      servers,
      ...(Object.keys(openapiDocuments).length ? { openapi_documents: openapiDocuments } : {}),
      tool_selection: toolSelection,
      bundles,
    };
    const doc = new Document(body);
    doc.commentBefore =
      ' Toolgate configuration (npm run toolgate -- import, or POST /api/v1/config/import).\n' +
      ' Secrets are references, never values: secret://… is a value the instance holds,\n' +
      ' ${env:NAME} a variable the importing CLI reads.';
    return { document: doc.toString({ lineWidth: 0 }), secret_references: references };
  }

  private serverEntry(row: DbServerRow, secret: SecretWriter): DocServer {
    const refs = (field: 'secret_env' | 'headers', keys: string[]): Record<string, string> =>
      Object.fromEntries(keys.map((key) => [key, secret({ kind: 'server', server: row.name, field, key }, row.name, key)]));
    const common = {
      name: row.name,
      ...(row.description !== null ? { description: row.description } : {}),
      enabled: row.enabled,
      ...(row.call_timeout_ms !== null ? { call_timeout_ms: row.call_timeout_ms } : {}),
      ...(row.health_check_interval_seconds !== null ? { health_check_interval_seconds: row.health_check_interval_seconds } : {}),
    };
    if (row.transport === 'stdio')
      return {
        ...common,
        transport: 'stdio',
        command: row.command ?? '',
        ...(row.args.length ? { args: row.args } : {}),
        ...(Object.keys(row.env).length ? { env: row.env } : {}),
        ...(row.secret_env_keys.length ? { secret_env: refs('secret_env', row.secret_env_keys) } : {}),
        ...(row.cwd !== null ? { cwd: row.cwd } : {}),
        ...(row.sandboxed ? { sandboxed: true } : {}),
      } as DocServer;
    return {
      ...common,
      transport: row.transport,
      url: row.url ?? '',
      ...(row.header_names.length ? { headers: refs('headers', row.header_names) } : {}),
      ...(row.auth_mode !== 'none' ? { auth_mode: row.auth_mode, oauth: this.oauthEntry(row, secret) } : {}),
    } as DocServer;
  }

  /** A server's OAuth client settings as the document writes them: the client secret as a reference. */
  private oauthEntry(row: DbServerRow, secret: SecretWriter) {
    return {
      ...(row.oauth_client_id !== null ? { client_id: row.oauth_client_id } : {}),
      ...(row.oauth_client_secret_sealed !== null
        ? {
            client_secret: secret(
              { kind: 'server', server: row.name, field: 'oauth', key: 'client_secret' },
              row.name,
              'OAUTH_CLIENT_SECRET',
            ),
          }
        : {}),
      ...(row.oauth_token_endpoint_auth_method !== null ? { token_endpoint_auth_method: row.oauth_token_endpoint_auth_method } : {}),
      ...(row.oauth_scopes.length ? { scopes: row.oauth_scopes } : {}),
    };
  }

  /** Parses and validates a document (YAML or JSON text); 422 with `loc` inside the document. */
  parse(text: string): ConfigDocument {
    let parsed: unknown;
    try {
      // Aliases are capped by the parser (a billion-laughs document is refused).
      parsed = parseYaml(text, { maxAliasCount: 100, prettyErrors: false });
    } catch (err) {
      if (!(err instanceof YAMLError)) throw err;
      throw new RequestValidationError([at([], `Not a YAML or JSON document: ${err.message.split('\n')[0]}`, 'yaml_syntax')]);
    }
    if (!validateDocument(parsed)) throw new RequestValidationError((validateDocument.errors ?? []).slice(0, 50).map(ajvIssue));
    return parsed;
  }

  /** Applies a document (text or parsed) in one transaction; with `dryRun` only reports. */
  async import(input: string | ConfigDocument, options: ImportOptions): Promise<ConfigImportResult> {
    const doc = typeof input === 'string' ? this.parse(input) : input;
    const after: AfterCommit = { createdServers: [], touchedServers: new Map(), bundleIds: new Set(), oauthChanged: new Set() };
    let changes: ConfigChange[];
    try {
      changes = await this.deps.tx.transaction(async (stores) => {
        const out: ConfigChange[] = [];
        await this.applySettings(stores, doc, out, after);
        const servers = await this.applyServers(stores, doc, out, after);
        await this.applyOpenApiDocuments(stores, doc, servers, out, after);
        await this.applyToolSelection(stores, doc, servers, out, after);
        await this.applyBundles(stores, doc, servers, options.userId, out, after);
        if (out.length)
          await this.deps.activity.record(stores, {
            action: 'config.import',
            target: { type: 'config', id: 'import', name: 'configuration import' },
            details: { changes: out.length, kinds: [...new Set(out.map((c) => c.kind))].sort() },
          });
        if (options.dryRun) throw new DryRunRollback(out);
        return out;
      });
    } catch (err) {
      if (err instanceof DryRunRollback) return { dry_run: true, changed: err.changes.length > 0, changes: err.changes };
      throw err;
    }
    if (options.live !== false) await this.afterCommit(after);
    return { dry_run: false, changed: changes.length > 0, changes };
  }

  /** Settings: only the fields whose value differs from the one in force are written. */
  private async applySettings(stores: Stores, doc: ConfigDocument, out: ConfigChange[], after: AfterCommit): Promise<void> {
    if (!doc.settings) return;
    // Inside the transaction nothing may read through the pool (it may hold one connection only).
    const current = this.deps.settings.current;
    const patch: SettingsPatch = {};
    for (const field of SETTING_FIELDS) {
      const value = doc.settings[field];
      if (value !== undefined && canonicalJson(value) !== canonicalJson(current[field])) (patch as Record<string, unknown>)[field] = value;
    }
    const token = doc.settings.registry_token;
    if (token === null && current.has_registry_token) patch.registry_token = null;
    else if (typeof token === 'string') {
      const sealed = (await stores.generalSettings.get())?.registry_token_sealed ?? null;
      const held = sealed === null ? null : this.deps.secrets.open(sealed);
      const ref = parseStoredSecretReference(token);
      if (ref === undefined) {
        if (envReferenceName(token) !== undefined) throw new RequestValidationError([this.envIssue(['settings', 'registry_token'])]);
        if (token !== held) patch.registry_token = token;
      } else if (ref === null || ref.kind !== 'registry_token' || held === null) {
        throw new RequestValidationError([
          at(['settings', 'registry_token'], 'The reference names no secret this instance holds', 'secret_unresolved', '[redacted]'),
        ]);
      }
    }
    const fields = Object.keys(patch);
    if (!fields.length) return;
    after.settings = await this.deps.settings.writeWithin(stores, patch, [...DOC_LOC, 'settings']);
    out.push({ kind: 'setting', name: 'general', action: 'update', fields: fields.sort() });
  }

  private envIssue(loc: (string | number)[]): ValidationIssue {
    return at(
      loc,
      '${env:…} references are resolved by the CLI (npm run toolgate -- import) from its environment; over REST send secret://… references or values',
      'env_reference',
      '[redacted]',
    );
  }

  /** Servers: registered when new, brought to the document's fields when they differ. Answers every server by lowercase name. */
  private async applyServers(
    stores: Stores,
    doc: ConfigDocument,
    out: ConfigChange[],
    after: AfterCommit,
  ): Promise<Map<string, DbServerRow>> {
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
      for (const found of this.deps.servers.checkConnectionFields({ url: entry.url ?? null, headers: entry.headers ?? {} }))
        issues.push({ ...found, loc: [...DOC_LOC, 'servers', i, ...found.loc.slice(1)] });
      const resolve = (field: 'secret_env' | 'headers'): Record<string, string> =>
        Object.fromEntries(
          Object.entries(entry[field] ?? {}).map(([k, v]) => [k, this.resolveSecret(v, ['servers', i, field, k], existing, issues)]),
        );
      const givenSecret = entry.oauth?.client_secret;
      const oauthSecret =
        typeof givenSecret === 'string'
          ? this.resolveSecret(givenSecret, ['servers', i, 'oauth', 'client_secret'], existing, issues)
          : null;
      plans.push({ i, entry, secretEnv: resolve('secret_env'), headers: resolve('headers'), oauthSecret });
    });
    if (issues.length) throw new RequestValidationError(issues);

    for (const { i, entry, secretEnv, headers, oauthSecret } of plans) {
      const stdio = entry.transport === 'stdio';
      // Declarative: the document holds the whole OAuth setting (what it leaves out is cleared).
      const oauth = this.oauthOf(entry, i, oauthSecret);
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
          secret_env_sealed: this.deps.servers.seal(secrets.secret_env),
          secret_env_keys: Object.keys(secrets.secret_env).sort(),
          headers_sealed: this.deps.servers.seal(secrets.headers),
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
      if (canonicalJson(secrets.secret_env) !== canonicalJson(this.deps.servers.open(row.secret_env_sealed))) {
        patch.secret_env_sealed = this.deps.servers.seal(secrets.secret_env);
        patch.secret_env_keys = Object.keys(secrets.secret_env).sort();
        fields.push('secret_env');
      }
      if (canonicalJson(secrets.headers) !== canonicalJson(this.deps.servers.open(row.headers_sealed))) {
        patch.headers_sealed = this.deps.servers.seal(secrets.headers);
        patch.header_names = Object.keys(secrets.headers).sort();
        fields.push('headers');
      }
      // Sealed values differ at every sealing: the secret is compared opened.
      if ((oauth.oauth_client_id === null ? null : oauthSecret) !== openOAuthSecret(this.deps.secrets, row)) {
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

  /** OpenAPI servers' documents: stored when they differ (the server's bridge restarts on the new one). */
  private async applyOpenApiDocuments(
    stores: Stores,
    doc: ConfigDocument,
    servers: Map<string, DbServerRow>,
    out: ConfigChange[],
    after: AfterCommit,
  ): Promise<void> {
    const issues: ValidationIssue[] = [];
    for (const [serverName, text] of Object.entries(doc.openapi_documents ?? {})) {
      const server = servers.get(serverName.toLowerCase());
      const loc = ['openapi_documents', serverName];
      if (!server || server.command !== OPENAPI_BRIDGE_COMMAND) {
        issues.push(at(loc, `No OpenAPI server is named "${serverName}"`, 'unknown_server', serverName));
        continue;
      }
      let document: string;
      try {
        const parsed = parseOpenApiDocument(text);
        if (!operationTools(await dereferenceOpenApi(parsed)).tools.length) throw new OpenApiDocumentError('The document has no operation');
        document = JSON.stringify(parsed);
      } catch (err) {
        if (!(err instanceof OpenApiDocumentError)) throw err;
        issues.push(at(loc, err.message, 'openapi_document'));
        continue;
      }
      const stored = await stores.servers.openApiDocument(server.id);
      if (stored?.document === document) continue;
      await stores.servers.putOpenApiDocument(server.id, document, null);
      after.touchedServers.set(server.id, { row: server, reconnect: true });
      const created = out.some((c) => c.kind === 'server' && c.action === 'create' && sameName(c.name, server.name));
      if (!created) out.push({ kind: 'server', name: server.name, action: 'update', fields: ['openapi_document'] });
    }
    if (issues.length) throw new RequestValidationError(issues);
  }

  /** A secret value of the document: a stored value it references, or the literal value. */
  /** The OAuth columns a document entry asks for (none for stdio), its 422s placed inside the document. */
  private oauthOf(entry: DocServer, i: number, secret: string | null) {
    const stdio = entry.transport === 'stdio';
    try {
      const input = entry.oauth ? { ...entry.oauth, client_secret: secret } : undefined;
      return oauthColumns(this.deps.secrets, stdio ? 'none' : (entry.auth_mode ?? 'none'), input, undefined);
    } catch (err) {
      if (!(err instanceof RequestValidationError)) throw err;
      // The service names a field `oauth.client_secret`; in the document it is two steps.
      const inDocument = (loc: readonly (string | number)[]): (string | number)[] =>
        loc.slice(1).flatMap((p): (string | number)[] => (typeof p === 'string' ? p.split('.') : [p]));
      throw new RequestValidationError(
        err.issues.map((found) => ({ ...found, loc: [...DOC_LOC, 'servers', i, ...inDocument(found.loc)] })),
      );
    }
  }

  private resolveSecret(value: string, loc: (string | number)[], servers: readonly DbServerRow[], issues: ValidationIssue[]): string {
    if (envReferenceName(value) !== undefined) {
      issues.push(this.envIssue(loc));
      return '';
    }
    const ref = parseStoredSecretReference(value);
    if (ref === undefined) return value;
    if (ref?.kind === 'server') {
      const server = servers.find((s) => sameName(s.name, ref.server));
      if (ref.field === 'oauth') {
        const held = server ? openOAuthSecret(this.deps.secrets, server) : null;
        if (held !== null) return held;
        issues.push(at(loc, 'The reference names no secret this instance holds', 'secret_unresolved', value));
        return '';
      }
      const held = server ? this.deps.servers.open(ref.field === 'secret_env' ? server.secret_env_sealed : server.headers_sealed) : {};
      const found = Object.entries(held).find(([k]) => (ref.field === 'headers' ? sameName(k, ref.key) : k === ref.key));
      if (found) return found[1];
    }
    issues.push(at(loc, 'The reference names no secret this instance holds', 'secret_unresolved', value));
    return '';
  }

  /** Tool selection: the listed tools take the listed state; unknown names become pending tools. */
  private async applyToolSelection(
    stores: Stores,
    doc: ConfigDocument,
    servers: Map<string, DbServerRow>,
    out: ConfigChange[],
    after: AfterCommit,
  ): Promise<void> {
    const issues: ValidationIssue[] = [];
    for (const [serverName, tools] of Object.entries(doc.tool_selection ?? {})) {
      const server = servers.get(serverName.toLowerCase());
      if (!server) {
        issues.push(at(['tool_selection', serverName], `No server is named "${serverName}"`, 'unknown_server', serverName));
        continue;
      }
      const rows = await this.toolsOf(stores, server.id);
      for (const [toolName, enabled] of Object.entries(tools)) {
        const row = rows.get(toolName);
        if (!row) {
          await this.addPendingTool(stores, server, toolName, enabled, rows, out, after);
          continue;
        }
        if (row.enabled === enabled) continue;
        await stores.catalog.setToolsEnabled([row.id], enabled);
        row.enabled = enabled;
        this.touch(after, server);
        out.push({ kind: 'tool', name: `${server.name}/${toolName}`, action: 'update', fields: ['enabled'] });
      }
    }
    if (issues.length) throw new RequestValidationError(issues);
  }

  /** The upstream tools of a server by name (script tools of skills are not the document's). */
  private async toolsOf(stores: Stores, serverId: string): Promise<Map<string, DbToolRow>> {
    const rows = await stores.catalog.toolsOfServers([serverId]);
    return new Map(rows.filter((t) => t.skill_attachment_id === null).map((t) => [t.name, t]));
  }

  private async addPendingTool(
    stores: Stores,
    server: DbServerRow,
    name: string,
    enabled: boolean,
    rows: Map<string, DbToolRow>,
    out: ConfigChange[],
    after: AfterCommit,
  ): Promise<DbToolRow> {
    const id = randomUUID();
    await stores.catalog.insertPendingTool({ id, server_id: server.id, name, enabled });
    const row = (await stores.catalog.toolsOfServers([server.id])).find((t) => t.id === id)!;
    rows.set(name, row);
    this.touch(after, server);
    out.push({ kind: 'tool', name: `${server.name}/${name}`, action: 'create', fields: [] });
    return row;
  }

  private touch(after: AfterCommit, server: DbServerRow): void {
    if (!after.touchedServers.has(server.id)) after.touchedServers.set(server.id, { row: server, reconnect: false });
  }

  /** Bundles: created when new; an existing one takes exactly the document's details, tools, order and overrides. */
  private async applyBundles(
    stores: Stores,
    doc: ConfigDocument,
    servers: Map<string, DbServerRow>,
    userId: string | null,
    out: ConfigChange[],
    after: AfterCommit,
  ): Promise<void> {
    const existing = new Map((await stores.bundles.listAll()).map((b) => [b.name.toLowerCase(), b]));
    const toolsByServer = new Map<string, Map<string, DbToolRow>>();
    const seen = new Set<string>();
    for (const [i, entry] of (doc.bundles ?? []).entries()) {
      const issues: ValidationIssue[] = [];
      if (seen.has(entry.name.toLowerCase()))
        throw new RequestValidationError([
          at(['bundles', i, 'name'], `The bundle "${entry.name}" is listed twice`, 'duplicate', entry.name),
        ]);
      seen.add(entry.name.toLowerCase());
      const desired: { tool: DbToolRow; server: DbServerRow; display_order: number; override: ToolOverride }[] = [];
      let next = 0;
      for (const [j, t] of (entry.tools ?? []).entries()) {
        const loc = ['bundles', i, 'tools', j];
        const server = servers.get(t.server.toLowerCase());
        if (!server) {
          issues.push(at([...loc, 'server'], `No server is named "${t.server}"`, 'unknown_server', t.server));
          continue;
        }
        let tools = toolsByServer.get(server.id);
        if (!tools) toolsByServer.set(server.id, (tools = await this.toolsOf(stores, server.id)));
        const tool = tools.get(t.tool) ?? (await this.addPendingTool(stores, server, t.tool, true, tools, out, after));
        if (desired.some((d) => d.tool.id === tool.id)) {
          issues.push(at([...loc, 'tool'], `The tool ${t.server}/${t.tool} is listed twice`, 'duplicate', t.tool));
          continue;
        }
        const override = normaliseOverride(t.override as ToolOverride | undefined);
        // A pending tool has no schema yet: its override is checked once the server lists it.
        const known = this.deps.catalog.tool(tool.id);
        if (known && tool.available) issues.push(...overrideSchemaIssues(known, override, [...DOC_LOC, ...loc, 'override']));
        const order = t.display_order ?? next;
        next = Math.max(next, order + 1);
        desired.push({ tool, server, display_order: order, override });
      }
      if (issues.length) throw new RequestValidationError(issues);
      const names = new Set<string>();
      for (const d of desired) {
        const name = effectiveName(d.tool.name, d.override);
        if (names.has(name)) throw new ConflictError(`Two tools of the bundle "${entry.name}" would be named "${name}"`, 'tool_name_taken');
        names.add(name);
      }
      await this.applyBundle(stores, entry, desired, existing.get(entry.name.toLowerCase()), userId, out, after);
    }
  }

  private async applyBundle(
    stores: Stores,
    entry: DocBundle,
    desired: { tool: DbToolRow; server: DbServerRow; display_order: number; override: ToolOverride }[],
    row: DbBundleRow | undefined,
    userId: string | null,
    out: ConfigChange[],
    after: AfterCommit,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const toolRow = (bundleId: string, d: (typeof desired)[number]): Omit<DbBundleToolRow, 'created_at' | 'updated_at'> => ({
      bundle_id: bundleId,
      tool_id: d.tool.id,
      server_id: d.server.id,
      server_name: d.server.name,
      tool_name: d.tool.name,
      display_order: d.display_order,
      override: d.override,
    });
    if (!row) {
      const key = mintBundleKey(this.deps.keyPrefix);
      const id = randomUUID();
      await stores.bundles.insert({
        id,
        name: entry.name,
        description: entry.description ?? null,
        agent_id: entry.agent_id ?? null,
        key_hash: hashBundleKey(key),
        key_sealed: this.deps.secrets.seal(key),
        created_by: userId,
      });
      await stores.bundles.insertTools(desired.map((d) => toolRow(id, d)));
      after.bundleIds.add(id);
      out.push({ kind: 'bundle', name: entry.name, action: 'create', fields: [] });
      return;
    }
    const patch: { name?: string; description?: string | null; agent_id?: string | null } = {};
    if (entry.name !== row.name) patch.name = entry.name;
    // Declarative: what the entry leaves out is cleared.
    if ((entry.description ?? null) !== row.description) patch.description = entry.description ?? null;
    if ((entry.agent_id ?? null) !== row.agent_id) patch.agent_id = entry.agent_id ?? null;
    let changed = false;
    if (Object.keys(patch).length) {
      await stores.bundles.update(row.id, patch, now);
      out.push({ kind: 'bundle', name: entry.name, action: 'update', fields: Object.keys(patch).sort() });
      changed = true;
    }
    const current = new Map((await stores.bundles.tools(row.id)).map((t) => [t.tool_id, t]));
    const label = (serverName: string, toolName: string): string => `${entry.name}: ${serverName}/${toolName}`;
    const wanted = new Set(desired.map((d) => d.tool.id));
    for (const t of current.values()) {
      if (wanted.has(t.tool_id)) continue;
      await stores.bundles.deleteTool(row.id, t.tool_id);
      out.push({ kind: 'bundle_tool', name: label(t.server_name, t.tool_name), action: 'remove', fields: [] });
      changed = true;
    }
    const added = desired.filter((d) => !current.has(d.tool.id));
    if (added.length) {
      await stores.bundles.insertTools(added.map((d) => toolRow(row.id, d)));
      for (const d of added) out.push({ kind: 'bundle_tool', name: label(d.server.name, d.tool.name), action: 'create', fields: [] });
      changed = true;
    }
    for (const d of desired) {
      const t = current.get(d.tool.id);
      if (!t) continue;
      const fields: string[] = [];
      if (t.display_order !== d.display_order) {
        await stores.bundles.setDisplayOrder(row.id, d.tool.id, d.display_order, now);
        fields.push('display_order');
      }
      if (canonicalJson(t.override ?? {}) !== canonicalJson(d.override)) {
        await stores.bundles.setOverride(row.id, d.tool.id, d.override, now);
        fields.push('override');
      }
      if (fields.length) {
        out.push({ kind: 'bundle_tool', name: label(d.server.name, d.tool.name), action: 'update', fields });
        changed = true;
      }
    }
    if (!changed) return;
    await stores.bundles.touch(row.id, now);
    after.bundleIds.add(row.id);
  }

  /** After the commit: settings take effect, servers (re)connect with their catalog reloaded, bundles go live. */
  private async afterCommit(after: AfterCommit): Promise<void> {
    if (after.settings) this.deps.settings.committed(after.settings);
    for (const row of after.createdServers) this.deps.sync.registered(row);
    for (const id of after.oauthChanged) await this.deps.servers.oauthSettingsChanged(id);
    for (const [id, { row, reconnect }] of after.touchedServers) {
      await this.deps.sync.reloadCatalog(id);
      this.deps.announce?.(id);
      if (!row.enabled) await this.deps.sync.disconnect(id);
      else if (reconnect) await this.deps.sync.connect(row);
    }
    await this.deps.bundles.republish([...after.bundleIds]);
  }
}
