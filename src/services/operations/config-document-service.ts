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
 * the diff it shows is exactly what applying would do. This file holds the export, the parsing
 * and the import's order (settings, servers, OpenAPI documents, tool selection, bundles) and what
 * goes live after its commit; each entity's apply step is in config-document/apply-*.ts.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Document, parse as parseYaml, YAMLError } from 'yaml';
import { RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import { ConfigDocumentSchema } from '../../generated/schemas.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { CatalogView } from '../../domain/catalog.js';
import { envNameFor, envReference, storedSecretReference, type StoredSecretReference } from '../../domain/config-document.js';
import type { DbServerRow } from '../../stores/servers-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { BundlesService } from '../bundles/bundles-service.js';
import type { CatalogSync } from '../catalog/catalog-sync.js';
import type { ServersService } from '../catalog/servers-service.js';
import { OPENAPI_BRIDGE_COMMAND } from '../catalog/openapi-servers.js';
import type { ActivityLog } from './activity-log.js';
import type { GeneralSettingsService } from './general-settings-service.js';
import { applyBundles } from './config-document/apply-bundles.js';
import { applyOpenApiDocuments } from './config-document/apply-openapi-documents.js';
import { applyServers } from './config-document/apply-servers.js';
import { applySettings } from './config-document/apply-settings.js';
import { applyToolSelection } from './config-document/apply-tool-selection.js';
import {
  at,
  SETTING_FIELDS,
  type AfterCommit,
  type ConfigChange,
  type ConfigDocument,
  type ConfigImportResult,
  type DocBundle,
  type DocServer,
  type ImportRun,
  type SettingsPatch,
} from './config-document/import-run.js';

export type { ConfigChange, ConfigDocument, ConfigImportResult } from './config-document/import-run.js';

type Schemas = components['schemas'];

/** How an export writes secret values. */
export type SecretMode = 'reference' | 'env';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
const validateDocument = addFormats(new Ajv({ strict: false, allErrors: true })).compile<ConfigDocument>(ConfigDocumentSchema);

/** Writes a secret's reference into an export: `secret://…` or `${env:NAME}` built from `envParts`. */
type SecretWriter = (ref: StoredSecretReference, ...envParts: string[]) => string;

/** Thrown inside a dry run's transaction to roll it back, carrying what it did. */
class DryRunRollback extends Error {
  constructor(readonly changes: ConfigChange[]) {
    super('dry run');
  }
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
        const run: ImportRun = { stores, doc, out, after };
        await applySettings(this.deps, run);
        const servers = await applyServers(this.deps, run);
        await applyOpenApiDocuments(run, servers);
        await applyToolSelection(run, servers);
        await applyBundles(this.deps, run, servers, options.userId);
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
