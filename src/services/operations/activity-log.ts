import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { ActivityOutcome, ActivityStore, DbActivityRow } from '../../stores/activity-store.js';
import type { Stores } from '../../stores/transactor.js';
import { currentActor, type Actor } from '../actor-context.js';

/** A fact about an admin action: plain values only (ids, names, counts, flags, lists of names). */
export type ActivityDetail = string | number | boolean | null | readonly string[];

/** One administrative action, as a service reports it. */
export interface ActivityEntryInput {
  /** `<resource>.<verb>`, e.g. `bundle.create`, `server.disable`, `settings.general.reset`. */
  readonly action: string;
  /** What it happened to. `name` is what the feed shows (falls back to `id`). */
  readonly target?: { readonly type: string; readonly id?: string | null; readonly name?: string | null };
  /** Default `success`. Failures are written with `append` (the failed change's transaction rolled back). */
  readonly outcome?: ActivityOutcome;
  /** Extra facts: ids, names, counts, flags. Never a secret, a request body or tool arguments. */
  readonly details?: Readonly<Record<string, ActivityDetail>>;
  /** Who did it; default the actor of the current request (actor-context), else nobody (system). */
  readonly actor?: Actor;
}

/** Detail keys that could name a secret: dropped, whatever the caller passed. */
const SECRET_KEY = /secret|token|password|passwd|credential|authorization|cookie|private|^key$|api_?key$|_key$/i;
const MAX_TEXT = 300;
const MAX_LIST = 50;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** Keeps plain, short, non-secret facts only (defence in depth: callers pass ids and names). */
function safeDetails(details: Readonly<Record<string, ActivityDetail>> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details ?? {})) {
    if (SECRET_KEY.test(k)) continue;
    if (typeof v === 'string') out[k] = clip(v);
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) out[k] = v;
    else if (Array.isArray(v)) out[k] = v.slice(0, MAX_LIST).map((x) => clip(String(x)));
  }
  return out;
}

/**
 * The admin activity log. Every state-changing administrative operation records one entry with
 * `record(stores, entry)`, passing the stores of its own transaction (`Transactor.transaction`),
 * so the entry exists exactly when the change does. Entries hold who, what, which target, when
 * and the outcome: ids and names, never secrets.
 */
export class ActivityLog {
  constructor(
    private readonly store: ActivityStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes an entry in the caller's transaction (committed or rolled back with the change):
   * `stores` are those the transaction's callback received.
   */
  async record(stores: Pick<Stores, 'activity'>, entry: ActivityEntryInput): Promise<void> {
    await stores.activity.insert(this.row(entry));
  }

  /** Writes an entry on its own: for outcomes that outlive a rolled-back change (a failure). */
  async append(entry: ActivityEntryInput): Promise<void> {
    await this.store.insert(this.row(entry));
  }

  private row(entry: ActivityEntryInput): DbActivityRow {
    const actor = entry.actor ?? currentActor();
    return {
      id: randomUUID(),
      occurred_at: this.clock.now(),
      actor_id: actor?.userId ?? null,
      actor_name: actor?.name ? clip(actor.name) : null,
      action: clip(entry.action),
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      target_name: entry.target?.name ? clip(entry.target.name) : null,
      outcome: entry.outcome ?? 'success',
      details: safeDetails(entry.details),
    };
  }
}
