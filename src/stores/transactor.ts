import type { Knex } from 'knex';
import { AiProvidersStore } from './ai-providers-store.js';
import { ActivityStore } from './activity-store.js';
import { ApiKeysStore } from './api-keys-store.js';
import { AuthSettingsStore } from './auth-settings-store.js';
import { BundleSharesStore, BundlesStore } from './bundles-store.js';
import { CallRecordsStore } from './call-records-store.js';
import { CatalogStore } from './catalog-store.js';
import { DashboardStore } from './dashboard-store.js';
import { GatewaySettingsStore } from './gateway-settings-store.js';
import { GenerationJobsStore } from './generation-jobs-store.js';
import { GeneralSettingsStore } from './general-settings-store.js';
import { InvitationsStore } from './invitations-store.js';
import { OAuthProvidersStore } from './oauth-providers-store.js';
import { OAuthStore } from './oauth-store.js';
import { SealedValuesStore } from './sealed-values-store.js';
import { ServersStore } from './servers-store.js';
import { SessionsStore } from './sessions-store.js';
import { SkillAttachmentsStore } from './skill-attachments-store.js';
import { SkillsStore } from './skills-store.js';
import { PolicyRulesStore } from './policy-rules-store.js';
import { GuardrailsStore } from './guardrails-store.js';
import { TeamsStore } from './teams-store.js';
import { UsersStore } from './users-store.js';
import { UpstreamOAuthStore } from './upstream-oauth-store.js';

/** Every store, all bound to one database handle (the pool, or one transaction). */
export interface Stores {
  readonly users: UsersStore;
  readonly apiKeys: ApiKeysStore;
  readonly sessions: SessionsStore;
  readonly invitations: InvitationsStore;
  readonly oauthProviders: OAuthProvidersStore;
  /** The MCP authorization server: clients, authorization requests, grants, token hashes. */
  readonly oauth: OAuthStore;
  readonly authSettings: AuthSettingsStore;
  readonly gatewaySettings: GatewaySettingsStore;
  readonly servers: ServersStore;
  readonly catalog: CatalogStore;
  readonly bundles: BundlesStore;
  /** Who bundles are shared with. */
  readonly bundleShares: BundleSharesStore;
  /** Teams, their members and OAuth group mappings. */
  readonly teams: TeamsStore;
  /** The tool policy rules. */
  readonly policyRules: PolicyRulesStore;
  /** Guardrails: redaction settings and interceptors. */
  readonly guardrails: GuardrailsStore;
  readonly callRecords: CallRecordsStore;
  readonly sealedValues: SealedValuesStore;
  readonly aiProviders: AiProvidersStore;
  /** The admin activity log. */
  readonly activity: ActivityStore;
  readonly generalSettings: GeneralSettingsStore;
  /** Dashboard reads: call rollups, recent calls, names. */
  readonly dashboard: DashboardStore;
  /** The skill library (skills and their files). */
  readonly skills: SkillsStore;
  /** Skills attached to servers and the script tools they register. */
  readonly skillAttachments: SkillAttachmentsStore;
  /** AI server generation jobs. */
  readonly generationJobs: GenerationJobsStore;
  /** Toolgate as an OAuth client of upstream servers: registrations, pending flows, the token vault. */
  readonly upstreamOAuth: UpstreamOAuthStore;
}

/** Builds every store on `db`. A new table's store is added here (and to `Stores`). */
export function createStores(db: Knex | Knex.Transaction): Stores {
  return {
    users: new UsersStore(db),
    apiKeys: new ApiKeysStore(db),
    sessions: new SessionsStore(db),
    invitations: new InvitationsStore(db),
    oauthProviders: new OAuthProvidersStore(db),
    oauth: new OAuthStore(db),
    authSettings: new AuthSettingsStore(db),
    gatewaySettings: new GatewaySettingsStore(db),
    servers: new ServersStore(db),
    catalog: new CatalogStore(db),
    bundles: new BundlesStore(db),
    bundleShares: new BundleSharesStore(db),
    teams: new TeamsStore(db),
    policyRules: new PolicyRulesStore(db),
    guardrails: new GuardrailsStore(db),
    callRecords: new CallRecordsStore(db),
    sealedValues: new SealedValuesStore(db),
    aiProviders: new AiProvidersStore(db),
    activity: new ActivityStore(db),
    generalSettings: new GeneralSettingsStore(db),
    dashboard: new DashboardStore(db),
    skills: new SkillsStore(db),
    skillAttachments: new SkillAttachmentsStore(db),
    generationJobs: new GenerationJobsStore(db),
    upstreamOAuth: new UpstreamOAuthStore(db),
  };
}

/**
 * Runs work in one database transaction, so services get all-or-nothing writes without seeing
 * Knex: the callback receives the stores bound to the transaction, which commits when the
 * callback resolves and rolls back when it throws (the error is rethrown unchanged).
 */
export class Transactor {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.knex.transaction((trx) => work(createStores(trx)));
  }
}
