import { CLIENT_REGISTRATION_POLICIES, type ClientRegistrationPolicy } from '../../domain/oauth.js';
import type { Config } from '../../config.js';
import { RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import { formatAllowlistEntry, OutboundPolicy, OutboundRefusedError, parseAllowlistEntry } from '../../lib/outbound-policy.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Logger } from '../../logger.js';
import type { DbGeneralSettingsRow, GeneralSettingsStore } from '../../stores/general-settings-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from './activity-log.js';
import type { ChangeBus } from '../../redis/change-bus.js';

type Schemas = components['schemas'];
export type GeneralSettingsResponse = Schemas['GeneralSettingsResponse'];
export type GeneralSettingsUpdate = Schemas['GeneralSettingsUpdate'];

/** The settings in force: stored overrides over the defaults. */
export interface EffectiveGeneralSettings {
  readonly log_retention_days: number;
  readonly activity_log_retention_days: number;
  readonly default_rate_limit_rpm: number;
  readonly mcp_session_idle_timeout_minutes: number;
  readonly upstream_call_timeout_ms: number;
  readonly health_check_interval_seconds: number;
  readonly allowed_origins: readonly string[];
  readonly outbound_allowlist: readonly string[];
  readonly registry_url: string | null;
  /** Dynamic client registration (RFC 7591) on the MCP authorization server: open, held for approval, or off. */
  readonly oauth_client_registration: ClientRegistrationPolicy;
  readonly has_registry_token: boolean;
  readonly updated_at: Date | null;
}

/** The settings an operator may also set in the environment, with the variable of each. */
const ENVIRONMENT_VARIABLES = {
  default_rate_limit_rpm: 'TOOLGATE_DEFAULT_RATE_LIMIT_RPM',
  allowed_origins: 'TOOLGATE_ALLOWED_ORIGINS',
  outbound_allowlist: 'TOOLGATE_OUTBOUND_ALLOWLIST',
} as const;
type EnvironmentField = keyof typeof ENVIRONMENT_VARIABLES;

/**
 * Values in force while a setting was never changed (or after a reset), and the settings the
 * environment sets: those win over anything stored, so an operator's variable always holds.
 */
export type GeneralSettingsDefaults = Omit<EffectiveGeneralSettings, 'has_registry_token' | 'updated_at'> & {
  readonly setByEnvironment: readonly EnvironmentField[];
};

/** The defaults: the environment's values where it sets one, else the built-in ones. */
export function generalSettingsDefaults(
  config: Pick<Config, 'defaultRateLimitRpm' | 'allowedOrigins' | 'outboundAllowlist' | 'setByEnvironment'>,
): GeneralSettingsDefaults {
  const given = new Set(config.setByEnvironment ?? []);
  return Object.freeze({
    setByEnvironment: Object.freeze(
      (Object.keys(ENVIRONMENT_VARIABLES) as EnvironmentField[]).filter((f) => given.has(ENVIRONMENT_VARIABLES[f])),
    ),
    log_retention_days: 30,
    activity_log_retention_days: 365,
    default_rate_limit_rpm: config.defaultRateLimitRpm,
    mcp_session_idle_timeout_minutes: 30,
    upstream_call_timeout_ms: 60_000,
    health_check_interval_seconds: 60,
    allowed_origins: Object.freeze([...config.allowedOrigins]),
    outbound_allowlist: Object.freeze([...config.outboundAllowlist]),
    registry_url: null,
    oauth_client_registration: 'open',
  });
}

/**
 * Something else a reset clears in the same transaction (AI provider configurations): `reset`
 * runs inside it (with the transaction's stores), `afterCommit` once it committed (drop caches).
 */
export interface SettingsResetHook {
  reset(stores: Stores): Promise<void>;
  afterCommit?(): void;
}

/** The registry used for catalog browsing, with its token opened (never leaves the process). */
export interface RegistryCredentials {
  readonly url: string | null;
  readonly token: string | null;
}

const NUMERIC = [
  'log_retention_days',
  'activity_log_retention_days',
  'default_rate_limit_rpm',
  'mcp_session_idle_timeout_minutes',
  'upstream_call_timeout_ms',
  'health_check_interval_seconds',
] as const;

/** How often settings are re-read even without a change notification (one lost message costs at most this). */
const RELOAD_MS = 30_000;

/** An origin as browsers send it (`scheme://host[:port]`), or an issue. */
function normaliseOrigin(value: string, loc: (string | number)[]): string | ValidationIssue {
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== 'null') return url.origin;
  } catch {
    // reported below
  }
  return { loc, msg: 'not a valid origin (scheme://host[:port])', type: 'value_error', input: value, ctx: {} };
}

/** A host name, IP address or CIDR range with an optional `:port` or `:*`, in canonical form, or an issue. */
function normaliseAllowlistEntry(value: string, loc: (string | number)[]): string | ValidationIssue {
  const entry = parseAllowlistEntry(value);
  if (entry) return formatAllowlistEntry(entry);
  return {
    loc,
    msg: 'not a host name, IP address or CIDR range, with an optional :port or :* (IPv6 in brackets when a port follows)',
    type: 'value_error',
    input: value,
    ctx: {},
  };
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/**
 * General settings: retention, rate-limit and timeout defaults, the MCP origin and outbound
 * allow-lists, the registry. Stored as overrides over defaults taken from the environment, held
 * in memory (`current`) for the hot paths that read them, and applied at run time: listeners
 * (`onChange`) run after every change here and, through the change bus, on every other instance.
 */
export class GeneralSettingsService {
  private effective: EffectiveGeneralSettings;
  private readonly listeners = new Set<(settings: EffectiveGeneralSettings) => void>();
  private readonly resetHooks: SettingsResetHook[] = [];
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      /** The settings row on the pool (reads); writes go through `tx`. */
      store: GeneralSettingsStore;
      tx: Transactor;
      secrets: SecretBox;
      clock: Clock;
      bus: ChangeBus;
      activity: ActivityLog;
      defaults: GeneralSettingsDefaults;
      logger: Logger;
    },
  ) {
    this.effective = this.resolve(undefined);
  }

  /** The settings in force on this instance (memory; no I/O). */
  get current(): EffectiveGeneralSettings {
    return this.effective;
  }

  /** Reads the stored settings (start-up), then follows changes from other instances. */
  async load(): Promise<void> {
    this.apply(this.resolve(await this.deps.store.get()));
    this.unsubscribe ??= this.deps.bus.subscribe((m) => {
      if (m.kind === 'general_settings') return this.reload();
    });
    this.timer ??= setInterval(() => void this.reload(), RELOAD_MS);
    this.timer.unref();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Calls `listener` after every change of the settings in force (here or on another instance). */
  onChange(listener: (settings: EffectiveGeneralSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Registers something else a reset clears (AI providers), in the reset's transaction. */
  addResetHook(hook: SettingsResetHook): void {
    this.resetHooks.push(hook);
  }

  async get(): Promise<GeneralSettingsResponse> {
    return this.view(this.resolve(await this.deps.store.get()));
  }

  /** Changes the supplied fields only (lists replaced whole); `registry_token` is sealed, `null` clears it. */
  async update(patch: GeneralSettingsUpdate): Promise<GeneralSettingsResponse> {
    const row = await this.deps.tx.transaction((stores) => this.writeWithin(stores, patch));
    this.committed(row);
    return this.view(this.effective);
  }

  /**
   * Validates a patch and writes it in the caller's transaction, with its activity entry (the
   * configuration import changes settings in its own transaction). Issues are located under
   * `loc`. Call `committed` with the row once the transaction committed.
   */
  async writeWithin(
    stores: Stores,
    patch: GeneralSettingsUpdate,
    loc: readonly (string | number)[] = ['body'],
  ): Promise<DbGeneralSettingsRow> {
    const issues: ValidationIssue[] = [];
    const origins = patch.allowed_origins?.map((o, i) => normaliseOrigin(o, [...loc, 'allowed_origins', i]));
    const allowlist = patch.outbound_allowlist?.map((e, i) => normaliseAllowlistEntry(e, [...loc, 'outbound_allowlist', i]));
    for (const v of [...(origins ?? []), ...(allowlist ?? [])]) if (typeof v !== 'string') issues.push(v);
    if (issues.length) throw new RequestValidationError(issues);
    const normalised: Partial<Record<EnvironmentField, unknown>> = {
      default_rate_limit_rpm: patch.default_rate_limit_rpm,
      allowed_origins: origins && unique(origins as string[]),
      outbound_allowlist: allowlist && unique(allowlist as string[]),
    };
    // A setting the environment sets is not stored: the variable wins. Sending the value in force
    // (a form that sends every field) is accepted and changes nothing; another value is refused.
    const locked = new Set(this.deps.defaults.setByEnvironment);
    for (const field of locked) {
      const value = normalised[field];
      if (value === undefined || JSON.stringify(value) === JSON.stringify(this.deps.defaults[field])) continue;
      issues.push({
        loc: [...loc, field],
        msg: `set by the environment variable ${ENVIRONMENT_VARIABLES[field]}, which wins over this setting: change it there`,
        type: 'value_error',
        input: value,
        ctx: { environment_variable: ENVIRONMENT_VARIABLES[field] },
      });
    }
    if (issues.length) throw new RequestValidationError(issues);

    const store = stores.generalSettings;
    const stored = await store.get({ forUpdate: true });
    const next: DbGeneralSettingsRow = { ...emptyRow(), ...stored, updated_at: this.deps.clock.now() };
    for (const key of NUMERIC) if (patch[key] !== undefined && !locked.has(key as EnvironmentField)) next[key] = patch[key];
    if (origins && !locked.has('allowed_origins')) next.allowed_origins = unique(origins as string[]);
    if (allowlist && !locked.has('outbound_allowlist')) next.outbound_allowlist = unique(allowlist as string[]);
    if (patch.registry_url !== undefined) next.registry_url = patch.registry_url;
    if (patch.oauth_client_registration !== undefined) next.oauth_client_registration = patch.oauth_client_registration;
    if (patch.registry_token !== undefined) {
      next.registry_token_sealed = patch.registry_token === null ? null : this.deps.secrets.seal(patch.registry_token);
    }
    const url = next.registry_url;
    if (url !== null && patch.registry_url !== undefined) {
      try {
        new OutboundPolicy(this.resolve(next).outbound_allowlist).checkStatic(url);
      } catch (err) {
        if (!(err instanceof OutboundRefusedError)) throw err;
        throw new RequestValidationError([{ loc: [...loc, 'registry_url'], msg: err.message, type: 'value_error', input: url, ctx: {} }]);
      }
    }
    await store.put(next);
    await this.deps.activity.record(stores, {
      action: 'settings.general.update',
      target: { type: 'settings', id: 'general', name: 'general settings' },
      details: { fields: Object.keys(patch).sort() },
    });
    return next;
  }

  /** After the transaction of `writeWithin` committed: the settings take effect here and on the other instances. */
  committed(row: DbGeneralSettingsRow): void {
    this.changed(row);
  }

  /**
   * Back to defaults, in one transaction: every general setting, the registry credentials, and
   * whatever the reset hooks clear (AI provider configurations). Recorded in the activity log.
   */
  async reset(): Promise<GeneralSettingsResponse> {
    await this.deps.tx.transaction(async (stores) => {
      await stores.generalSettings.clear();
      for (const hook of this.resetHooks) await hook.reset(stores);
      await this.deps.activity.record(stores, {
        action: 'settings.general.reset',
        target: { type: 'settings', id: 'general', name: 'general settings' },
        details: { ai_providers_reset: this.resetHooks.length > 0 },
      });
    });
    for (const hook of this.resetHooks) hook.afterCommit?.();
    this.changed(undefined);
    return this.view(this.effective);
  }

  private view(s: EffectiveGeneralSettings): GeneralSettingsResponse {
    return view(s, this.deps.defaults.setByEnvironment);
  }

  /** Defaults for servers registered without their own call timeout and health-check interval. */
  serverDefaults(): { callTimeoutMs: number; healthCheckIntervalSeconds: number } {
    return {
      callTimeoutMs: this.effective.upstream_call_timeout_ms,
      healthCheckIntervalSeconds: this.effective.health_check_interval_seconds,
    };
  }

  /** The registry for catalog browsing, token opened (for the catalog client only; never returned). */
  async registry(): Promise<RegistryCredentials> {
    const row = await this.deps.store.get();
    return {
      url: row?.registry_url ?? this.deps.defaults.registry_url,
      token: row?.registry_token_sealed ? this.deps.secrets.open(row.registry_token_sealed) : null,
    };
  }

  /** After a committed change here: apply, tell the other instances. */
  private changed(row: DbGeneralSettingsRow | undefined): void {
    this.apply(this.resolve(row));
    this.deps.bus.publish({ kind: 'general_settings' });
  }

  private async reload(): Promise<void> {
    try {
      this.apply(this.resolve(await this.deps.store.get()));
    } catch (err) {
      this.deps.logger.warn({ reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' }, 'general settings not reloaded');
    }
  }

  /** Makes `next` the settings in force and tells the listeners when anything changed. */
  private apply(next: EffectiveGeneralSettings): void {
    const before = this.effective;
    this.effective = next;
    if (JSON.stringify(before) === JSON.stringify(next)) return;
    for (const listener of this.listeners) {
      try {
        listener(next);
      } catch (err) {
        this.deps.logger.error({ err }, 'applying general settings failed');
      }
    }
  }

  private resolve(row: DbGeneralSettingsRow | undefined): EffectiveGeneralSettings {
    const d = this.deps.defaults;
    // What the environment sets wins over what is stored.
    const env = new Set(d.setByEnvironment);
    if (row && env.size) row = { ...row, ...Object.fromEntries([...env].map((f) => [f, null])) };
    return Object.freeze({
      log_retention_days: row?.log_retention_days ?? d.log_retention_days,
      activity_log_retention_days: row?.activity_log_retention_days ?? d.activity_log_retention_days,
      default_rate_limit_rpm: row?.default_rate_limit_rpm ?? d.default_rate_limit_rpm,
      mcp_session_idle_timeout_minutes: row?.mcp_session_idle_timeout_minutes ?? d.mcp_session_idle_timeout_minutes,
      upstream_call_timeout_ms: row?.upstream_call_timeout_ms ?? d.upstream_call_timeout_ms,
      health_check_interval_seconds: row?.health_check_interval_seconds ?? d.health_check_interval_seconds,
      allowed_origins: Object.freeze([...(row?.allowed_origins ?? d.allowed_origins)]),
      outbound_allowlist: Object.freeze([...(row?.outbound_allowlist ?? d.outbound_allowlist)]),
      registry_url: row?.registry_url ?? d.registry_url,
      oauth_client_registration: registrationPolicy(row?.oauth_client_registration) ?? d.oauth_client_registration,
      has_registry_token: !!row?.registry_token_sealed,
      updated_at: row?.updated_at ?? null,
    });
  }
}

/** A stored registration policy, when it is one this version knows. */
function registrationPolicy(value: string | null | undefined): ClientRegistrationPolicy | undefined {
  return (CLIENT_REGISTRATION_POLICIES as readonly string[]).includes(value ?? '') ? (value as ClientRegistrationPolicy) : undefined;
}

function emptyRow(): DbGeneralSettingsRow {
  return {
    log_retention_days: null,
    activity_log_retention_days: null,
    default_rate_limit_rpm: null,
    mcp_session_idle_timeout_minutes: null,
    upstream_call_timeout_ms: null,
    health_check_interval_seconds: null,
    allowed_origins: null,
    outbound_allowlist: null,
    registry_url: null,
    registry_token_sealed: null,
    oauth_client_registration: null,
    updated_at: new Date(0),
  };
}

function view(s: EffectiveGeneralSettings, setByEnvironment: readonly EnvironmentField[]): GeneralSettingsResponse {
  return {
    set_by_environment: [...setByEnvironment],
    log_retention_days: s.log_retention_days,
    activity_log_retention_days: s.activity_log_retention_days,
    default_rate_limit_rpm: s.default_rate_limit_rpm,
    mcp_session_idle_timeout_minutes: s.mcp_session_idle_timeout_minutes,
    upstream_call_timeout_ms: s.upstream_call_timeout_ms,
    health_check_interval_seconds: s.health_check_interval_seconds,
    allowed_origins: [...s.allowed_origins],
    outbound_allowlist: [...s.outbound_allowlist],
    registry_url: s.registry_url,
    oauth_client_registration: s.oauth_client_registration,
    has_registry_token: s.has_registry_token,
    updated_at: s.updated_at?.toISOString() ?? null,
  };
}
