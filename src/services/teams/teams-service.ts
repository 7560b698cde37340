import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../logger.js';
import type { TeamMemberships } from '../../live/team-memberships.js';
import type { ChangeBus } from '../../redis/change-bus.js';
import type { DbTeamGroupRow, DbTeamMemberRow, DbTeamRow, TeamsStore } from '../../stores/teams-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import { pageResult, pageWindow, type PageQuery } from '../pagination.js';

type Schemas = components['schemas'];
export type TeamView = Schemas['Team'];

/** The membership source of a sign-in through one OAuth provider. */
function oauthSource(providerType: string): string {
  return `oauth:${providerType}`;
}

/**
 * Teams: admins create them and add users; OAuth sign-ins place users in the teams their group
 * claims map to. Bundles are shared with teams (the bundles service), so a membership decides
 * what a member may use on `/mcp/gateway`. After every committed change the in-memory
 * memberships the gateway reads are re-read, here and (through the change bus) on every other
 * instance, so a change applies at once everywhere.
 */
export class TeamsService {
  /** Tells this instance's announcements from the others'. */
  private readonly instanceId = randomUUID();
  private reloads: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      tx: Transactor;
      teams: TeamsStore;
      memberships: TeamMemberships;
      bus: ChangeBus;
      clock: Clock;
      activity: ActivityLog;
      logger: Logger;
      /** Re-reads bundles whose shares changed outside the bundles service (a deleted team's). */
      republishBundles(ids: readonly string[]): Promise<void>;
    },
  ) {
    deps.bus.subscribe((m) => {
      if (m.kind !== 'teams' || m.from === this.instanceId) return;
      return this.reload().catch((err: unknown) =>
        deps.logger.warn(
          { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
          'could not apply a team change of another instance',
        ),
      );
    });
  }

  /** Reads every membership into memory (start-up, and after each change), one read at a time. */
  reload(): Promise<void> {
    const next = this.reloads.then(async () => {
      const rows = await this.deps.teams.allMemberships();
      this.deps.memberships.replaceAll(rows.map((r) => ({ teamId: r.team_id, userId: r.user_id })));
    });
    this.reloads = next.catch(() => undefined);
    return next;
  }

  async list(query: PageQuery & { search?: string | undefined }): Promise<Schemas['TeamListResponse']> {
    const window = pageWindow(query);
    const { rows, total } = await this.deps.teams.list(window, query.search);
    const groups = await this.deps.teams.groupsOf(rows.map((r) => r.id));
    return pageResult(window, rows, total, (r) => this.summary(r, Number(r.member_count), groups));
  }

  async get(id: string): Promise<TeamView> {
    const row = await this.deps.teams.findById(id);
    if (!row) throw new NotFoundError(`Team ${id} not found`, 'team_not_found');
    return this.view(row, await this.deps.teams.members(id), await this.deps.teams.groupsOf([id]));
  }

  async create(input: Schemas['TeamCreate']): Promise<TeamView> {
    const id = randomUUID();
    const view = await this.deps.tx.transaction(async (stores) => {
      const row = await stores.teams.insert({ id, name: input.name.trim(), description: input.description ?? null }, this.deps.clock.now());
      await stores.teams.setGroups(id, groupRows(input.oauth_groups ?? []));
      await this.deps.activity.record(stores, {
        action: 'team.create',
        target: { type: 'team', id, name: row.name },
        details: { oauth_groups: (input.oauth_groups ?? []).map((g) => `${g.provider_type}:${g.group}`) },
      });
      return this.view(row, [], await stores.teams.groupsOf([id]));
    });
    return view;
  }

  async update(id: string, patch: Schemas['TeamUpdate']): Promise<TeamView> {
    return this.deps.tx.transaction(async (stores) => {
      const fields: Partial<Pick<DbTeamRow, 'name' | 'description'>> = {};
      if (patch.name !== undefined) fields.name = patch.name.trim();
      if (patch.description !== undefined) fields.description = patch.description;
      const row = await stores.teams.update(id, fields, this.deps.clock.now());
      if (!row) throw new NotFoundError(`Team ${id} not found`, 'team_not_found');
      if (patch.oauth_groups !== undefined) await stores.teams.setGroups(id, groupRows(patch.oauth_groups));
      await this.deps.activity.record(stores, {
        action: 'team.update',
        target: { type: 'team', id, name: row.name },
        details: { fields: Object.keys(patch).sort() },
      });
      return this.view(row, await stores.teams.members(id), await stores.teams.groupsOf([id]));
    });
  }

  async delete(id: string): Promise<void> {
    const sharedBundles = await this.deps.tx.transaction(async (stores) => {
      const row = await stores.teams.findById(id);
      if (!row) throw new NotFoundError(`Team ${id} not found`, 'team_not_found');
      const bundles = await stores.bundleShares.bundlesOfTeam(id);
      await stores.teams.delete(id);
      await this.deps.activity.record(stores, {
        action: 'team.delete',
        target: { type: 'team', id, name: row.name },
        details: { shared_bundles: bundles.length },
      });
      return bundles;
    });
    // The shares went with the team: the bundles' live forms are re-read (and announced).
    await this.deps.republishBundles(sharedBundles);
    await this.changed();
  }

  async addMember(teamId: string, userId: string): Promise<TeamView> {
    const view = await this.deps.tx.transaction(async (stores) => {
      const { team, user } = await this.both(stores, teamId, userId);
      await stores.teams.putMember(teamId, userId, 'manual', this.deps.clock.now());
      await this.deps.activity.record(stores, {
        action: 'team.member.add',
        target: { type: 'team', id: teamId, name: team.name },
        details: { user_id: userId, user: user.name || user.email },
      });
      return this.view(team, await stores.teams.members(teamId), await stores.teams.groupsOf([teamId]));
    });
    await this.changed();
    return view;
  }

  async removeMember(teamId: string, userId: string): Promise<void> {
    await this.deps.tx.transaction(async (stores) => {
      const team = await stores.teams.findById(teamId);
      if (!team) throw new NotFoundError(`Team ${teamId} not found`, 'team_not_found');
      if (!(await stores.teams.deleteMember(teamId, userId)))
        throw new NotFoundError(`User ${userId} is not a member of team ${teamId}`, 'not_a_member');
      await this.deps.activity.record(stores, {
        action: 'team.member.remove',
        target: { type: 'team', id: teamId, name: team.name },
        details: { user_id: userId },
      });
    });
    await this.changed();
  }

  /**
   * Applies the group claims of a sign-in through `providerType`: the user joins each team one of
   * the groups maps to (unless already a member) and leaves the teams this provider's groups had
   * placed them in that no group maps to any more. Manual memberships are never touched; a
   * provider that sent no group claim (`groups` null) changes nothing.
   */
  async applyOAuthGroups(userId: string, providerType: string, groups: readonly string[] | null): Promise<void> {
    if (groups === null) return;
    const source = oauthSource(providerType);
    const changed = await this.deps.tx.transaction(async (stores) => {
      const wanted = new Set(await stores.teams.teamsOfGroups(providerType, groups));
      const current = await stores.teams.membershipsOf(userId);
      const have = new Set(current.map((m) => m.team_id));
      const joined = [...wanted].filter((t) => !have.has(t));
      const left = current.filter((m) => m.source === source && !wanted.has(m.team_id)).map((m) => m.team_id);
      const now = this.deps.clock.now();
      for (const teamId of joined) await stores.teams.putMember(teamId, userId, source, now);
      for (const teamId of left) await stores.teams.deleteMember(teamId, userId);
      if (joined.length || left.length) {
        await this.deps.activity.record(stores, {
          action: 'team.membership.sync',
          target: { type: 'user', id: userId },
          details: { auth_provider: providerType, joined, left },
          actor: { userId, name: null },
        });
      }
      return joined.length + left.length > 0;
    });
    if (changed) await this.changed();
  }

  /** After a committed change: memory here, then the other instances. */
  private async changed(): Promise<void> {
    await this.reload();
    this.deps.bus.publish({ kind: 'teams', from: this.instanceId });
  }

  private async both(stores: Stores, teamId: string, userId: string) {
    const team = await stores.teams.findById(teamId);
    if (!team) throw new NotFoundError(`Team ${teamId} not found`, 'team_not_found');
    const user = await stores.users.findById(userId);
    if (!user) throw new NotFoundError(`User ${userId} not found`, 'user_not_found');
    return { team, user };
  }

  private summary(row: DbTeamRow, memberCount: number, groups: readonly DbTeamGroupRow[]): Schemas['TeamSummary'] {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      oauth_groups: groups.filter((g) => g.team_id === row.id).map((g) => ({ provider_type: g.provider_type, group: g.group_name })),
      member_count: memberCount,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }

  private view(row: DbTeamRow, members: readonly DbTeamMemberRow[], groups: readonly DbTeamGroupRow[]): TeamView {
    return {
      ...this.summary(row, members.length, groups),
      members: members.map((m) => ({
        user_id: m.user_id,
        email: m.email,
        name: m.name,
        source: m.source === 'manual' ? ('manual' as const) : ('oauth' as const),
        added_at: m.added_at.toISOString(),
      })),
    };
  }
}

/** Group mappings as rows, each once. */
function groupRows(groups: readonly Schemas['TeamOAuthGroup'][]): { provider_type: string; group_name: string }[] {
  const seen = new Set<string>();
  const out: { provider_type: string; group_name: string }[] = [];
  for (const g of groups) {
    const k = `${g.provider_type}\u0000${g.group}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ provider_type: g.provider_type, group_name: g.group });
  }
  return out;
}
