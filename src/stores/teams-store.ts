import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import { matching, pageOf } from './paging.js';
import { conflictOnUnique } from './unique-violation.js';

export interface DbTeamRow {
  id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A team's member with the user's name and email. */
export interface DbTeamMemberRow {
  team_id: string;
  user_id: string;
  /** `manual`, or `oauth:<provider_type>`. */
  source: string;
  added_at: Date;
  email: string;
  name: string;
}

export interface DbTeamGroupRow {
  team_id: string;
  provider_type: string;
  group_name: string;
}

const COLUMNS = ['id', 'name', 'description', 'created_at', 'updated_at'] as const;

const CONFLICTS = conflictOnUnique({
  teams_name_lower_key: ['A team with this name already exists', 'team_name_taken'],
});

/** Persistence of teams, their members and their OAuth group mappings. */
export class TeamsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** A page of teams by name (then id), with member counts, optionally filtered by a name substring. */
  async list(window: PageWindow, search?: string): Promise<{ rows: (DbTeamRow & { member_count: number })[]; total: number }> {
    return pageOf<DbTeamRow & { member_count: number }>(
      () => this.db('teams as t').modify((q: Knex.QueryBuilder) => matching(q, search, ['t.name'])),
      (q) =>
        q
          .select(COLUMNS.map((c) => `t.${c}`))
          .select(this.db.raw('(select count(*)::int from team_members m where m.team_id = t.id) as member_count'))
          .orderByRaw('lower(t.name), t.id'),
      window,
    );
  }

  async findById(id: string): Promise<DbTeamRow | undefined> {
    return this.db('teams').select(COLUMNS).where({ id }).first();
  }

  /** The teams of these ids that exist. */
  async existing(ids: readonly string[]): Promise<DbTeamRow[]> {
    if (!ids.length) return [];
    return this.db('teams')
      .select(COLUMNS)
      .whereIn('id', [...ids]);
  }

  async insert(row: Pick<DbTeamRow, 'id' | 'name' | 'description'>, now: Date): Promise<DbTeamRow> {
    const [created] = await this.db('teams')
      .insert({ ...row, created_at: now, updated_at: now })
      .returning(COLUMNS)
      .catch(CONFLICTS);
    return created as DbTeamRow;
  }

  async update(id: string, patch: Partial<Pick<DbTeamRow, 'name' | 'description'>>, now: Date): Promise<DbTeamRow | undefined> {
    const [row] = await this.db('teams')
      .where({ id })
      .update({ ...patch, updated_at: now })
      .returning(COLUMNS)
      .catch(CONFLICTS);
    return row as DbTeamRow | undefined;
  }

  /** Deletes the team (memberships, mappings and shares go with it); false when it did not exist. */
  async delete(id: string): Promise<boolean> {
    return (await this.db('teams').where({ id }).delete().returning('id')).length > 0;
  }

  /** The members of a team by name, with each user's email and name. */
  async members(teamId: string): Promise<DbTeamMemberRow[]> {
    return this.db('team_members as m')
      .join('users as u', 'u.id', 'm.user_id')
      .select('m.team_id', 'm.user_id', 'm.source', 'm.added_at', 'u.email', 'u.name')
      .where('m.team_id', teamId)
      .orderByRaw('lower(u.name), lower(u.email), u.id');
  }

  /** Adds (or turns into `source`) a membership. */
  async putMember(teamId: string, userId: string, source: string, now: Date): Promise<void> {
    await this.db('team_members')
      .insert({ team_id: teamId, user_id: userId, source, added_at: now })
      .onConflict(['team_id', 'user_id'])
      .merge(['source']);
  }

  /** Ends a membership; false when there was none. */
  async deleteMember(teamId: string, userId: string): Promise<boolean> {
    return (await this.db('team_members').where({ team_id: teamId, user_id: userId }).delete().returning('user_id')).length > 0;
  }

  /** Every membership (start-up load of the in-memory memberships, and re-reads after a change). */
  async allMemberships(): Promise<{ team_id: string; user_id: string }[]> {
    return this.db('team_members').select('team_id', 'user_id');
  }

  /** A user's memberships with their sources. */
  async membershipsOf(userId: string): Promise<{ team_id: string; source: string }[]> {
    return this.db('team_members').select('team_id', 'source').where({ user_id: userId });
  }

  /** The OAuth group mappings of these teams. */
  async groupsOf(teamIds: readonly string[]): Promise<DbTeamGroupRow[]> {
    if (!teamIds.length) return [];
    return this.db('team_oauth_groups')
      .select('team_id', 'provider_type', 'group_name')
      .whereIn('team_id', [...teamIds])
      .orderBy(['provider_type', 'group_name']);
  }

  /** Replaces a team's OAuth group mappings. */
  async setGroups(teamId: string, groups: readonly { provider_type: string; group_name: string }[]): Promise<void> {
    await this.db('team_oauth_groups').where({ team_id: teamId }).delete();
    if (groups.length) await this.db('team_oauth_groups').insert(groups.map((g) => ({ team_id: teamId, ...g })));
  }

  /** The teams that one of these groups of a provider maps to. */
  async teamsOfGroups(providerType: string, groups: readonly string[]): Promise<string[]> {
    if (!groups.length) return [];
    const rows: { team_id: string }[] = await this.db('team_oauth_groups')
      .distinct('team_id')
      .where({ provider_type: providerType })
      .whereIn('group_name', [...groups]);
    return rows.map((r) => r.team_id);
  }
}
