import {
  DEFAULT_REDACTION,
  effectiveRedaction,
  type BundleRedactionSettings,
  type Interceptor,
  type RedactionSettings,
} from '../domain/guardrails.js';
import { Redactor } from '../domain/redaction.js';

/**
 * The guardrails in memory, for the MCP hot path: the installation's redaction settings, each
 * bundle's override, and the enabled interceptors with their secrets opened. What a call needs
 * is one `planFor(bundleId)`: the bundle's redactor (null when it redacts nothing) and the
 * interceptors of each phase, compiled once per bundle and reused until the guardrails change.
 *
 * Replaced as a whole after each committed change (here by the guardrails service, on every
 * other instance through the change bus), so every instance applies a change at once.
 */

/** What the guardrail stage does for calls through one bundle. */
export interface GuardrailPlan {
  /** Redacts arguments and results; null when the bundle redacts nothing. */
  readonly redactor: Redactor | null;
  /** Interceptors called before the upstream, in order. */
  readonly before: readonly Interceptor[];
  /** Interceptors called with the result, in order. */
  readonly after: readonly Interceptor[];
}

/** Everything the live guardrails are made from. */
export interface GuardrailsSnapshot {
  readonly global: RedactionSettings;
  readonly bundles: ReadonlyMap<string, BundleRedactionSettings>;
  readonly interceptors: readonly Interceptor[];
}

const NOTHING: readonly Interceptor[] = [];

/** Orders interceptors: ascending priority, then id. */
function byPriority(a: Interceptor, b: Interceptor): number {
  return a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The live guardrails. */
export class Guardrails {
  private snapshot: GuardrailsSnapshot = { global: DEFAULT_REDACTION, bundles: new Map(), interceptors: [] };
  private plans = new Map<string, GuardrailPlan>();
  /** Redactors by their options, shared by every bundle with the same settings. */
  private readonly redactors = new Map<string, Redactor>();

  /** The installation's redaction settings. */
  get global(): RedactionSettings {
    return this.snapshot.global;
  }

  /** Replaces everything (start-up, and after each committed change). */
  load(snapshot: GuardrailsSnapshot): void {
    this.snapshot = { ...snapshot, interceptors: snapshot.interceptors.filter((i) => i.enabled).sort(byPriority) };
    this.plans = new Map();
  }

  /** The plan of calls through `bundleId` (compiled once per bundle and version). */
  planFor(bundleId: string): GuardrailPlan {
    let plan = this.plans.get(bundleId);
    if (!plan) this.plans.set(bundleId, (plan = this.compile(bundleId)));
    return plan;
  }

  private compile(bundleId: string): GuardrailPlan {
    const r = effectiveRedaction(this.snapshot.global, this.snapshot.bundles.get(bundleId));
    const applies = this.snapshot.interceptors.filter((i) => i.bundles.length === 0 || i.bundles.includes(bundleId));
    const before = applies.filter((i) => i.phases.includes('before'));
    const after = applies.filter((i) => i.phases.includes('after'));
    return {
      redactor: r.redact_secrets || r.redact_pii ? this.redactor(r) : null,
      before: before.length ? before : NOTHING,
      after: after.length ? after : NOTHING,
    };
  }

  private redactor(r: RedactionSettings): Redactor {
    const key = `${r.redact_secrets ? 's' : ''}${r.redact_pii ? 'p' : ''}`;
    let redactor = this.redactors.get(key);
    if (!redactor) this.redactors.set(key, (redactor = new Redactor({ secrets: r.redact_secrets, pii: r.redact_pii })));
    return redactor;
  }
}
