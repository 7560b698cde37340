/**
 * What the steps of a configuration import share: the document's types, the settings it carries,
 * where its problems are reported (under the request body's `document`), and what an applied
 * import leaves for after its commit. Each step (apply-*.ts) writes through the transaction's
 * stores, appends the changes it made, and notes what must go live once the transaction commits;
 * the service (config-document-service.ts) runs them in order.
 */
import type { ValidationIssue } from '../../../errors.js';
import type { components } from '../../../generated/openapi.js';
import type { DbGeneralSettingsRow } from '../../../stores/general-settings-store.js';
import type { DbServerRow } from '../../../stores/servers-store.js';
import type { Stores } from '../../../stores/transactor.js';

type Schemas = components['schemas'];
export type ConfigDocument = Schemas['ConfigDocument'];
export type ConfigImportResult = Schemas['ConfigImportResult'];
export type ConfigChange = ConfigImportResult['changes'][number];
export type DocServer = NonNullable<ConfigDocument['servers']>[number];
export type DocBundle = NonNullable<ConfigDocument['bundles']>[number];
export type SettingsPatch = Schemas['GeneralSettingsUpdate'];

/** Where a document's problems are reported: under the request body's `document`. */
export const DOC_LOC = ['body', 'document'] as const;

/** The settings a document carries (every general setting but the registry token, which is a secret). */
export const SETTING_FIELDS = [
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

/** What an applied import must do once its transaction committed. */
export interface AfterCommit {
  settings?: DbGeneralSettingsRow;
  createdServers: DbServerRow[];
  /** Servers whose row or tool selection changed (reload their catalog, reconnect or disconnect). */
  touchedServers: Map<string, { row: DbServerRow; reconnect: boolean }>;
  bundleIds: Set<string>;
  /** Servers whose OAuth client or URL changed: their vault connections were made for the former one. */
  oauthChanged: Set<string>;
}

/** One import under way, as each of its steps sees it. */
export interface ImportRun {
  /** The stores of the import's one transaction (rolled back after a dry run). */
  readonly stores: Stores;
  readonly doc: ConfigDocument;
  /** The changes made so far, in order: the import's answer. */
  readonly out: ConfigChange[];
  readonly after: AfterCommit;
}

export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Issues located inside the document. */
export function at(loc: readonly (string | number)[], msg: string, type: string, input?: unknown): ValidationIssue {
  return { loc: [...DOC_LOC, ...loc], msg, type, input: input === undefined ? null : input, ctx: {} };
}

/** The issue of an `${env:…}` reference that reached the service unresolved (only the CLI resolves them). */
export function envIssue(loc: (string | number)[]): ValidationIssue {
  return at(
    loc,
    '${env:…} references are resolved by the CLI (npm run toolgate -- import) from its environment; over REST send secret://… references or values',
    'env_reference',
    '[redacted]',
  );
}
