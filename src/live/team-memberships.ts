import { NO_TEAMS } from '../domain/bundle-access.js';

/**
 * Which teams each user is in, in memory, for the MCP routes: the gateway decides which bundles a
 * member may use from it without a database read. Loaded at start, replaced after each committed
 * change (on this instance by the teams service, on the others through the change bus); listeners
 * hear which users' teams changed, so their cached gateway views are rebuilt and their open
 * sessions told that the tool list changed.
 */
export class TeamMemberships {
  private byUser = new Map<string, ReadonlySet<string>>();
  private readonly listeners = new Set<(userIds: ReadonlySet<string>) => void>();

  /** The teams of a user (an empty set when none). */
  teamsOf(userId: string): ReadonlySet<string> {
    return this.byUser.get(userId) ?? NO_TEAMS;
  }

  /**
   * Replaces every membership with `pairs` (start-up, or a change of another instance) and tells
   * the listeners which users' teams differ from before.
   */
  replaceAll(pairs: Iterable<{ readonly teamId: string; readonly userId: string }>): void {
    const next = new Map<string, Set<string>>();
    for (const { teamId, userId } of pairs) {
      let teams = next.get(userId);
      if (!teams) next.set(userId, (teams = new Set()));
      teams.add(teamId);
    }
    const changed = new Set<string>();
    for (const [userId, teams] of next) if (!sameSet(teams, this.byUser.get(userId))) changed.add(userId);
    for (const userId of this.byUser.keys()) if (!next.has(userId)) changed.add(userId);
    this.byUser = next;
    if (changed.size) for (const l of this.listeners) l(changed);
  }

  onChange(listener: (userIds: ReadonlySet<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string> | undefined): boolean {
  if (!b || a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
