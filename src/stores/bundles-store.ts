import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import type { ToolOverride } from '../domain/tool-override.js';
import { matching, pageOf } from './paging.js';
import { conflictOnUnique } from './unique-violation.js';

export interface DbBundleRow {
  id: string;
  name: string;
  description: string | null;
  agent_id: string | null;
  key_hash: string;
  key_sealed: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DbBundleToolRow {
  bundle_id: string;
  tool_id: string;
  server_id: string;
  server_name: string;
  tool_name: string;
  display_order: number;
  override: ToolOverride;
  created_at: Date;
  updated_at: Date;
}

const BUNDLE_COLUMNS = [
  'id',
  'name',
  'description',
  'agent_id',
  'key_hash',
  'key_sealed',
  'created_by',
  'created_at',
  'updated_at',
] as const;
const TOOL_COLUMNS = [
  'bundle_id',
  'tool_id',
  'server_id',
  'server_name',
  'tool_name',
  'display_order',
  'override',
  'created_at',
  'updated_at',
] as const;

/** What the unique constraints of bundles and bundle_tools mean to a caller. */
const CONFLICTS = conflictOnUnique({
  bundles_agent_id_key: ['Another bundle is already linked to this agent_id', 'agent_id_taken'],
  bundles_name_lower_key: ['A bundle with this name already exists', 'name_taken'],
  bundle_tools_pkey: ['A tool is already in this bundle', 'tool_in_bundle'],
});

/** A bundle row with the number of its tools. */
export type DbBundleSummaryRow = DbBundleRow & { tool_count: number };

/** Persistence of bundles and their tools. */
export class BundlesStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * A page of bundles ordered by name (then id), optionally filtered by a name substring; with
   * `visibleTo`, only the bundles that user created or that are shared with them or their teams.
   */
  async list(
    window: PageWindow,
    search?: string,
    visibleTo?: { userId: string; teamIds: readonly string[] },
  ): Promise<{ rows: DbBundleSummaryRow[]; total: number }> {
    return pageOf<DbBundleSummaryRow>(
      () =>
        this.db('bundles as b')
          .modify((q: Knex.QueryBuilder) => matching(q, search, ['b.name']))
          .modify((q: Knex.QueryBuilder) => {
            if (!visibleTo) return;
            const { userId, teamIds } = visibleTo;
            q.where((w) =>
              w.where('b.created_by', userId).orWhereExists((e) =>
                e
                  .select(this.db.raw('1'))
                  .from('bundle_shares as s')
                  .whereRaw('s.bundle_id = b.id')
                  .andWhere((g) => {
                    g.where('s.user_id', userId);
                    if (teamIds.length) g.orWhereIn('s.team_id', [...teamIds]);
                  }),
              ),
            );
          }),
      (q) =>
        q
          .select(BUNDLE_COLUMNS.map((c) => `b.${c}`))
          .select(this.db.raw('(select count(*)::int from bundle_tools bt where bt.bundle_id = b.id) as tool_count'))
          .orderByRaw('lower(b.name), b.id'),
      window,
    );
  }

  async findById(id: string, options: { forUpdate?: boolean } = {}): Promise<DbBundleRow | undefined> {
    const q = this.db('bundles').select(BUNDLE_COLUMNS).where({ id }).first();
    if (options.forUpdate) q.forUpdate();
    return q;
  }

  /** The bundle a key hash opens (an instance catching up on a bundle another one just created). */
  async findByKeyHash(keyHash: string): Promise<DbBundleRow | undefined> {
    return this.db('bundles').select(BUNDLE_COLUMNS).where({ key_hash: keyHash }).first();
  }

  async findByAgent(agentId: string): Promise<DbBundleRow | undefined> {
    return this.db('bundles').select(BUNDLE_COLUMNS).where({ agent_id: agentId }).first();
  }

  async insert(row: Omit<DbBundleRow, 'created_at' | 'updated_at'>): Promise<DbBundleRow> {
    const [created] = await this.db('bundles').insert(row).returning(BUNDLE_COLUMNS).catch(CONFLICTS);
    return created as DbBundleRow;
  }

  /** Updates the given columns (and `updated_at`); undefined when the bundle does not exist. */
  async update(
    id: string,
    patch: Partial<Pick<DbBundleRow, 'name' | 'description' | 'agent_id' | 'key_hash' | 'key_sealed'>>,
    now: Date,
  ): Promise<DbBundleRow | undefined> {
    const [row] = await this.db('bundles')
      .where({ id })
      .update({ ...patch, updated_at: now })
      .returning(BUNDLE_COLUMNS)
      .catch(CONFLICTS);
    return row as DbBundleRow | undefined;
  }

  /** Marks the bundle changed (its tools changed). */
  async touch(id: string, now: Date): Promise<void> {
    await this.db('bundles').where({ id }).update({ updated_at: now });
  }

  /** Deletes the bundle (its tools go with it); false when it did not exist. */
  async delete(id: string): Promise<boolean> {
    return (await this.db('bundles').where({ id }).delete().returning('id')).length > 0;
  }

  /** Every bundle (start-up load of the in-memory registry). */
  async listAll(): Promise<DbBundleRow[]> {
    return this.db('bundles').select(BUNDLE_COLUMNS);
  }

  /** The tools of one bundle in display order (ties by upstream name). */
  async tools(bundleId: string): Promise<DbBundleToolRow[]> {
    return this.db('bundle_tools')
      .select(TOOL_COLUMNS)
      .where({ bundle_id: bundleId })
      .orderBy([{ column: 'display_order' }, { column: 'tool_name' }]);
  }

  /** The tools of every bundle (start-up load). */
  async allTools(): Promise<DbBundleToolRow[]> {
    return this.db('bundle_tools').select(TOOL_COLUMNS);
  }

  async insertTools(rows: Omit<DbBundleToolRow, 'created_at' | 'updated_at'>[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db('bundle_tools')
      .insert(rows.map((r) => ({ ...r, override: JSON.stringify(r.override) })))
      .catch(CONFLICTS);
  }

  async deleteTool(bundleId: string, toolId: string): Promise<boolean> {
    return (await this.db('bundle_tools').where({ bundle_id: bundleId, tool_id: toolId }).delete().returning('tool_id')).length > 0;
  }

  /**
   * Removes every tool of one upstream server from every bundle (the server is being deleted) and
   * marks those bundles changed; returns the ids of the bundles that lost tools.
   */
  async removeToolsOfServer(serverId: string, now: Date): Promise<string[]> {
    const removed: { bundle_id: string }[] = await this.db('bundle_tools').where({ server_id: serverId }).delete().returning('bundle_id');
    const ids = [...new Set(removed.map((r) => r.bundle_id))];
    if (ids.length) await this.db('bundles').whereIn('id', ids).update({ updated_at: now });
    return ids;
  }

  /**
   * Removes these tools from every bundle (script tools of a detached or changed skill, deleted
   * from the catalog) and marks those bundles changed; returns the ids of the bundles that lost tools.
   */
  async removeTools(toolIds: readonly string[], now: Date): Promise<string[]> {
    if (!toolIds.length) return [];
    const removed: { bundle_id: string }[] = await this.db('bundle_tools')
      .whereIn('tool_id', [...toolIds])
      .delete()
      .returning('bundle_id');
    const ids = [...new Set(removed.map((r) => r.bundle_id))];
    if (ids.length) await this.db('bundles').whereIn('id', ids).update({ updated_at: now });
    return ids;
  }

  async setOverride(bundleId: string, toolId: string, override: ToolOverride, now: Date): Promise<void> {
    await this.db('bundle_tools')
      .where({ bundle_id: bundleId, tool_id: toolId })
      .update({ override: JSON.stringify(override), updated_at: now });
  }

  async setDisplayOrder(bundleId: string, toolId: string, displayOrder: number, now: Date): Promise<void> {
    await this.db('bundle_tools').where({ bundle_id: bundleId, tool_id: toolId }).update({ display_order: displayOrder, updated_at: now });
  }
}

/** One share of a bundle, with the grantee's display name. */
export interface DbBundleShareRow {
  bundle_id: string;
  team_id: string | null;
  user_id: string | null;
  access: 'view' | 'use';
  created_at: Date;
  /** The team's name, or the user's name (their email when it is empty). */
  grantee_name: string;
}

/** Persistence of who bundles are shared with. */
export class BundleSharesStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** The shares of these bundles (all bundles when `bundleIds` is undefined), teams first, by name. */
  async of(bundleIds?: readonly string[]): Promise<DbBundleShareRow[]> {
    const q = this.db('bundle_shares as s')
      .leftJoin('teams as t', 't.id', 's.team_id')
      .leftJoin('users as u', 'u.id', 's.user_id')
      .select(
        's.bundle_id',
        's.team_id',
        's.user_id',
        's.access',
        's.created_at',
        this.db.raw("coalesce(t.name, nullif(u.name, ''), u.email) as grantee_name"),
      )
      .orderByRaw('s.team_id is null, lower(coalesce(t.name, u.name, u.email)), coalesce(s.team_id, s.user_id)');
    if (bundleIds) q.whereIn('s.bundle_id', [...bundleIds]);
    return q;
  }

  /** Replaces the shares of a bundle. */
  async replace(
    bundleId: string,
    shares: readonly { team_id: string | null; user_id: string | null; access: 'view' | 'use' }[],
    now: Date,
  ): Promise<void> {
    await this.db('bundle_shares').where({ bundle_id: bundleId }).delete();
    if (shares.length) await this.db('bundle_shares').insert(shares.map((s) => ({ ...s, bundle_id: bundleId, created_at: now })));
  }

  /** The bundles shared with a team (to re-read them when the team is deleted). */
  async bundlesOfTeam(teamId: string): Promise<string[]> {
    const rows: { bundle_id: string }[] = await this.db('bundle_shares').select('bundle_id').where({ team_id: teamId });
    return rows.map((r) => r.bundle_id);
  }

  /** The bundles shared with a user (to re-read them when the user is deleted). */
  async bundlesOfUser(userId: string): Promise<string[]> {
    const rows: { bundle_id: string }[] = await this.db('bundle_shares').select('bundle_id').where({ user_id: userId });
    return rows.map((r) => r.bundle_id);
  }
}
