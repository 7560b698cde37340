import type { Knex } from 'knex';
import type { AuditEvent, AuditEventSource, AuditExportSession } from '../domain/audit-event.js';

type Run = (sql: string, bindings?: readonly unknown[]) => Promise<unknown>;
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

const LOCK = "hashtext(current_schema() || ':toolgate.audit_export')";

/**
 * The audit export's reads and cursors. On PostgreSQL a round holds a session advisory lock (per
 * schema) on a connection of its own, so one instance exports at a time; the embedded database
 * belongs to one process and needs none. Who did it comes from a join with `users` (email, name),
 * so the exported identity is the user's current one.
 */
export class AuditExportStore implements AuditEventSource {
  constructor(
    private readonly knex: Knex,
    private readonly options: { advisoryLock: boolean },
  ) {}

  /** Runs `fn` holding the export lock; resolves `undefined` without running it when another instance holds it. */
  async exclusive<T>(fn: (session: AuditExportSession) => Promise<T>): Promise<T | undefined> {
    if (!this.options.advisoryLock) return fn(this.session((sql, b = []) => this.knex.raw(sql, b as Knex.RawBinding[])));
    const client = this.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
    const connection = await client.acquireConnection();
    const run: Run = (sql, b = []) => this.knex.raw(sql, b as Knex.RawBinding[]).connection(connection);
    try {
      const [row] = rowsOf<{ locked: boolean }>(await run(`select pg_try_advisory_lock(${LOCK}) as locked`));
      if (!row?.locked) return undefined;
      try {
        return await fn(this.session(run));
      } finally {
        await run(`select pg_advisory_unlock(${LOCK})`);
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }

  private session(run: Run): AuditExportSession {
    return {
      events: async (after, limit) => {
        const rows = rowsOf<Record<string, unknown>>(
          await run(
            `select * from (
               select c.audit_seq as seq, 'tool_call' as kind, c.occurred_at, c.user_id, u.email, u.name as user_name, c.api_key_id, c.oauth_client_id,
                      'tools/call' as action, 'tool' as target_type, c.tool_id::text as target_id, c.tool_name as target_name,
                      c.server_id::text as server_id, c.server_name, c.bundle_id::text as bundle_id, c.status as outcome,
                      c.endpoint, c.latency_ms, null::jsonb as details, c.redactions, c.interceptions
                 from call_records c left join users u on u.id = c.user_id
                where c.audit_seq > ? order by c.audit_seq limit ?
             ) calls
             union all
             select * from (
               select a.audit_seq, 'activity', a.occurred_at, a.actor_id, u.email, coalesce(u.name, a.actor_name), null::uuid, null::text,
                      a.action, a.target_type, a.target_id, a.target_name, null::text, null::text, null::text, a.outcome,
                      null::text, null::float8, a.details, null::int, null::jsonb
                 from activity_log a left join users u on u.id = a.actor_id
                where a.audit_seq > ? order by a.audit_seq limit ?
             ) entries
             order by seq limit ?`,
            [after, limit, after, limit, limit],
          ),
        );
        return rows.map(toEvent);
      },
      cursor: async (sink) => {
        const [row] = rowsOf<{ position: string | number }>(await run('select position from audit_export_cursors where sink = ?', [sink]));
        return row ? Number(row.position) : 0;
      },
      advance: async (sink, position) => {
        await run(
          `insert into audit_export_cursors (sink, position, updated_at) values (?, ?, now())
           on conflict (sink) do update set position = greatest(audit_export_cursors.position, excluded.position), updated_at = now()`,
          [sink, position],
        );
      },
      head: async () => {
        const [row] = rowsOf<{ head: string | number | null }>(
          await run('select greatest((select max(audit_seq) from call_records), (select max(audit_seq) from activity_log)) as head'),
        );
        return Number(row?.head ?? 0);
      },
    };
  }
}

function toEvent(r: Record<string, unknown>): AuditEvent {
  const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  const time = r.occurred_at instanceof Date ? r.occurred_at : new Date(String(r.occurred_at));
  const call = r.kind === 'tool_call';
  return {
    seq: Number(r.seq),
    kind: call ? 'tool_call' : 'activity',
    time: time.toISOString(),
    actor: {
      user_id: str(r.user_id),
      email: str(r.email),
      name: str(r.user_name),
      api_key_id: str(r.api_key_id),
      oauth_client_id: str(r.oauth_client_id),
    },
    action: String(r.action),
    target: call
      ? {
          type: 'tool',
          id: str(r.target_id),
          name: str(r.target_name),
          server_id: str(r.server_id),
          server_name: str(r.server_name),
          bundle_id: str(r.bundle_id),
        }
      : { type: str(r.target_type), id: str(r.target_id), name: str(r.target_name) },
    outcome: String(r.outcome),
    ...(call ? { endpoint: String(r.endpoint), latency_ms: Number(r.latency_ms) } : { details: detailsOf(r.details) }),
    ...(call ? guardrailFacts(r) : {}),
  };
}

/**
 * A call's guardrail facts: how many values were redacted, and each interceptor's decision
 * (without its detail: a rejection's message may quote the call, and the export never does).
 */
function guardrailFacts(r: Record<string, unknown>): Pick<AuditEvent, 'redactions' | 'interceptions'> {
  const parsed = typeof r.interceptions === 'string' ? (JSON.parse(r.interceptions) as unknown) : r.interceptions;
  const interceptions = Array.isArray(parsed)
    ? (parsed as Record<string, unknown>[]).map((i) => ({
        interceptor_id: String(i.interceptor_id),
        interceptor_name: String(i.interceptor_name),
        phase: String(i.phase),
        outcome: String(i.outcome),
      }))
    : [];
  return { redactions: Number(r.redactions ?? 0), ...(interceptions.length ? { interceptions } : {}) };
}

/** The activity's facts (ids, names, counts, flags: the activity log keeps no secret in them). */
function detailsOf(v: unknown): Record<string, unknown> {
  const parsed = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
