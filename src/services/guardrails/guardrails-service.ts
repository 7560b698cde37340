import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import {
  DEFAULT_REDACTION,
  effectiveRedaction,
  type BundleRedactionSettings,
  type Interceptor,
  type RedactionSettings,
} from '../../domain/guardrails.js';
import type { Clock } from '../../lib/clock.js';
import { OutboundRefusedError, type OutboundPolicy } from '../../lib/outbound-policy.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { Guardrails } from '../../live/guardrails.js';
import type { Logger } from '../../logger.js';
import type { ChangeBus } from '../../redis/change-bus.js';
import type { BundlesStore } from '../../stores/bundles-store.js';
import type { DbInterceptorRow, GuardrailsStore } from '../../stores/guardrails-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import { conflictOnUnique } from '../../stores/unique-violation.js';
import type { ActivityLog } from '../operations/activity-log.js';

type Schemas = components['schemas'];
export type InterceptorView = Schemas['Interceptor'];

/** Most interceptors a deployment holds (the contract says the same). */
export const MAX_INTERCEPTORS = 50;
const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_PRIORITY = 1000;

const NAME_TAKEN = conflictOnUnique({
  guardrail_interceptors_name_lower_key: ['An interceptor with this name exists', 'interceptor_name_taken'],
});

/**
 * The guardrails' settings and interceptors: REST writes go to the database (each recorded in
 * the activity log in the same transaction, never with a secret), then everything is re-read
 * into the live guardrails the MCP routes apply, here and (through the change bus) on every
 * other instance. Interceptor secrets are sealed at rest and opened only into the live world.
 */
export class GuardrailsService {
  private readonly instanceId = randomUUID();
  private reloads: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      tx: Transactor;
      store: GuardrailsStore;
      bundles: BundlesStore;
      live: Guardrails;
      secrets: SecretBox;
      outbound: OutboundPolicy;
      bus: ChangeBus;
      clock: Clock;
      activity: ActivityLog;
      logger: Logger;
    },
  ) {
    deps.bus.subscribe((m) => {
      if (m.kind !== 'guardrails' || m.from === this.instanceId) return;
      return this.reload().catch((err: unknown) =>
        deps.logger.warn(
          { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
          'could not apply a guardrails change of another instance',
        ),
      );
    });
  }

  /** Reads everything into the live guardrails (start-up and after each change), one read at a time. */
  reload(): Promise<void> {
    const next = this.reloads.then(async () => {
      const [settings, bundles, interceptors] = await Promise.all([
        this.deps.store.settings(),
        this.deps.store.bundleSettings(),
        this.deps.store.interceptors(),
      ]);
      const opened: Interceptor[] = [];
      for (const row of interceptors) {
        try {
          opened.push(this.live(row));
        } catch (err) {
          // An interceptor whose secret cannot be opened (another master key) is left out, loudly.
          this.deps.logger.error(
            { interceptor: row.id, reason: err instanceof Error ? err.message : 'unknown' },
            'interceptor secret unreadable',
          );
        }
      }
      this.deps.live.load({
        global: settings ? { redact_secrets: settings.redact_secrets, redact_pii: settings.redact_pii } : DEFAULT_REDACTION,
        bundles: new Map(bundles.map((b) => [b.bundle_id, { redact_secrets: b.redact_secrets, redact_pii: b.redact_pii }])),
        interceptors: opened,
      });
    });
    this.reloads = next.catch(() => undefined);
    return next;
  }

  async getSettings(): Promise<Schemas['GuardrailSettings']> {
    const row = await this.deps.store.settings();
    return row
      ? { redact_secrets: row.redact_secrets, redact_pii: row.redact_pii, updated_at: row.updated_at.toISOString() }
      : { ...DEFAULT_REDACTION, updated_at: null };
  }

  async updateSettings(patch: Schemas['GuardrailSettingsUpdate']): Promise<Schemas['GuardrailSettings']> {
    const row = await this.deps.tx.transaction(async (stores) => {
      const current = (await stores.guardrails.settings()) ?? DEFAULT_REDACTION;
      const next: RedactionSettings = {
        redact_secrets: patch.redact_secrets ?? current.redact_secrets,
        redact_pii: patch.redact_pii ?? current.redact_pii,
      };
      const written = await stores.guardrails.putSettings(next, this.deps.clock.now());
      await this.deps.activity.record(stores, {
        action: 'guardrails.update',
        target: { type: 'settings', id: 'guardrails', name: 'Guardrails' },
        details: { redact_secrets: next.redact_secrets, redact_pii: next.redact_pii, fields: Object.keys(patch).sort() },
      });
      return written;
    });
    await this.changed();
    return { redact_secrets: row.redact_secrets, redact_pii: row.redact_pii, updated_at: row.updated_at.toISOString() };
  }

  async getBundle(bundleId: string): Promise<Schemas['BundleGuardrails']> {
    await bundleName(this.deps.bundles, bundleId);
    const [own, global] = await Promise.all([this.deps.store.bundleSettingsOf(bundleId), this.deps.store.settings()]);
    return this.bundleView(bundleId, own, global ?? DEFAULT_REDACTION);
  }

  async setBundle(bundleId: string, input: Schemas['BundleGuardrailsUpdate']): Promise<Schemas['BundleGuardrails']> {
    await this.deps.tx.transaction(async (stores) => {
      const name = await bundleName(stores.bundles, bundleId);
      await stores.guardrails.putBundleSettings(
        bundleId,
        { redact_secrets: input.redact_secrets, redact_pii: input.redact_pii },
        this.deps.clock.now(),
      );
      await this.deps.activity.record(stores, {
        action: 'bundle.guardrails.update',
        target: { type: 'bundle', id: bundleId, name },
        details: { redact_secrets: input.redact_secrets, redact_pii: input.redact_pii },
      });
    });
    await this.changed();
    return this.getBundle(bundleId);
  }

  async listInterceptors(): Promise<Schemas['InterceptorListResponse']> {
    return { items: (await this.deps.store.interceptors()).map(view) };
  }

  async getInterceptor(id: string): Promise<InterceptorView> {
    const row = await this.deps.store.findInterceptor(id);
    if (!row) throw notFound(id);
    return view(row);
  }

  async createInterceptor(input: Schemas['InterceptorCreate']): Promise<InterceptorView> {
    this.checkUrl(input.url);
    const id = randomUUID();
    const row = await this.deps.tx.transaction(async (stores) => {
      await checkBundles(stores, input.bundles);
      if ((await stores.guardrails.countInterceptors()) >= MAX_INTERCEPTORS)
        throw new ConflictError(`At most ${MAX_INTERCEPTORS} interceptors may exist`, 'interceptor_limit');
      const created = await stores.guardrails
        .insertInterceptor(
          {
            id,
            name: input.name.trim(),
            description: input.description ?? null,
            url: input.url,
            secret_sealed: this.deps.secrets.seal(input.secret),
            phases: [...input.phases],
            bundles: input.bundles ?? [],
            timeout_ms: input.timeout_ms ?? DEFAULT_TIMEOUT_MS,
            failure_mode: input.failure_mode,
            priority: input.priority ?? DEFAULT_PRIORITY,
            enabled: input.enabled ?? true,
          },
          this.deps.clock.now(),
        )
        .catch(NAME_TAKEN);
      await this.deps.activity.record(stores, {
        action: 'interceptor.create',
        target: { type: 'interceptor', id, name: created.name },
        details: {
          phases: created.phases,
          bundles: created.bundles.length,
          failure_mode: created.failure_mode,
          timeout_ms: created.timeout_ms,
        },
      });
      return created;
    });
    await this.changed();
    return view(row);
  }

  async updateInterceptor(id: string, patch: Schemas['InterceptorUpdate']): Promise<InterceptorView> {
    if (patch.url !== undefined) this.checkUrl(patch.url);
    const row = await this.deps.tx.transaction(async (stores) => {
      await checkBundles(stores, patch.bundles);
      const fields: Partial<Omit<DbInterceptorRow, 'id' | 'created_at' | 'updated_at'>> = {};
      for (const k of ['description', 'url', 'timeout_ms', 'failure_mode', 'priority', 'enabled'] as const) {
        if (patch[k] !== undefined) (fields as Record<string, unknown>)[k] = patch[k];
      }
      if (patch.name !== undefined) fields.name = patch.name.trim();
      if (patch.phases !== undefined) fields.phases = [...patch.phases];
      if (patch.bundles !== undefined) fields.bundles = [...patch.bundles];
      if (patch.secret !== undefined) fields.secret_sealed = this.deps.secrets.seal(patch.secret);
      const updated = await stores.guardrails.updateInterceptor(id, fields, this.deps.clock.now()).catch(NAME_TAKEN);
      if (!updated) throw notFound(id);
      await this.deps.activity.record(stores, {
        action: 'interceptor.update',
        target: { type: 'interceptor', id, name: updated.name },
        details: { fields: Object.keys(patch).sort() },
      });
      return updated;
    });
    await this.changed();
    return view(row);
  }

  async deleteInterceptor(id: string): Promise<void> {
    await this.deps.tx.transaction(async (stores) => {
      const removed = await stores.guardrails.deleteInterceptor(id);
      if (!removed) throw notFound(id);
      await this.deps.activity.record(stores, { action: 'interceptor.delete', target: { type: 'interceptor', id, name: removed.name } });
    });
    await this.changed();
  }

  private live(row: DbInterceptorRow): Interceptor {
    return {
      id: row.id,
      name: row.name,
      url: row.url,
      secret: this.deps.secrets.open(row.secret_sealed),
      phases: row.phases,
      bundles: row.bundles,
      timeoutMs: row.timeout_ms,
      failureMode: row.failure_mode,
      enabled: row.enabled,
      priority: row.priority,
    };
  }

  private bundleView(bundleId: string, own: BundleRedactionSettings | undefined, global: RedactionSettings): Schemas['BundleGuardrails'] {
    const effective = effectiveRedaction({ redact_secrets: global.redact_secrets, redact_pii: global.redact_pii }, own);
    const plan = this.deps.live.planFor(bundleId);
    const seen = new Map<string, Schemas['BundleGuardrails']['interceptors'][number]>();
    for (const i of [...plan.before, ...plan.after]) {
      if (seen.has(i.id)) continue;
      const phases = (['before', 'after'] as const).filter((p) => (p === 'before' ? plan.before : plan.after).includes(i));
      seen.set(i.id, { id: i.id, name: i.name, phases });
    }
    return {
      bundle_id: bundleId,
      redact_secrets: own?.redact_secrets ?? null,
      redact_pii: own?.redact_pii ?? null,
      effective: { redact_secrets: effective.redact_secrets, redact_pii: effective.redact_pii },
      interceptors: [...seen.values()],
    };
  }

  /** A URL the outbound-address policy refuses without resolving it is a 422 at `url`. */
  private checkUrl(url: string): void {
    try {
      this.deps.outbound.checkStatic(url);
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      throw new RequestValidationError([{ loc: ['body', 'url'], msg: err.message, type: 'value_error.outbound_refused', input: url }]);
    }
  }

  private async changed(): Promise<void> {
    await this.reload();
    this.deps.bus.publish({ kind: 'guardrails', from: this.instanceId });
  }
}

/** The bundle's name; 404 when it does not exist. */
async function bundleName(bundles: BundlesStore, bundleId: string): Promise<string> {
  const row = await bundles.findById(bundleId);
  if (!row) throw new NotFoundError(`Bundle ${bundleId} not found`);
  return row.name;
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`Interceptor ${id} not found`, 'interceptor_not_found');
}

/** Every listed bundle must exist: a 422 at the first that does not. */
async function checkBundles(stores: Stores, bundles: readonly string[] | undefined): Promise<void> {
  if (!bundles?.length) return;
  const issues: ValidationIssue[] = [];
  for (const [i, id] of bundles.entries()) {
    if (!(await stores.bundles.findById(id)))
      issues.push({ loc: ['body', 'bundles', i], msg: `bundle ${id} does not exist`, type: 'value_error.unknown_bundle', input: id });
  }
  if (issues.length) throw new RequestValidationError(issues);
}

function view(row: DbInterceptorRow): InterceptorView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    url: row.url,
    phases: row.phases,
    bundles: row.bundles,
    timeout_ms: row.timeout_ms,
    failure_mode: row.failure_mode,
    priority: row.priority,
    enabled: row.enabled,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
