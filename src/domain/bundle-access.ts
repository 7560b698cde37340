import { roleAtLeast, type Role } from './principal.js';

/**
 * Who may do what with a bundle: one function, so the REST lists, the gateway settings check,
 * the gateway's view and its search can never disagree.
 *
 * - Admins and owners `manage` every bundle (and so may use each on `/mcp/gateway`).
 * - A member may `use` the bundles they created and those shared for use with them or with one of
 *   their teams; they may `view` those shared view-only. Viewing shows the bundle and its tools in
 *   the console and REST, never its key; using also serves it on the member's `/mcp/gateway`.
 * - Anything else a member reaches only through a bundle key on `/mcp/bundle/{bundle_key}`.
 */

/** What a share grants: `use` includes `view`. */
export type ShareAccess = 'view' | 'use';

/** One grant of a bundle: to a team (all its members) or to one user. */
export interface BundleGrant {
  readonly grantee: 'team' | 'user';
  readonly id: string;
  readonly access: ShareAccess;
}

/** The caller, as the rule needs them: their id, role and the teams they are in. */
export interface BundleUser {
  readonly userId: string;
  readonly role: Role;
  readonly teamIds: ReadonlySet<string>;
}

/** What a caller may do with a bundle, strongest first; null: nothing (it is not shown to them). */
export type BundleAccess = 'manage' | 'use' | 'view';

/** No teams: the value for a user in none, shared so callers need not allocate. */
export const NO_TEAMS: ReadonlySet<string> = new Set<string>();

/** What `user` may do with `bundle`, or null when they may not even see it. */
export function bundleAccess(
  user: BundleUser,
  bundle: { readonly createdBy: string | null; readonly shares: readonly BundleGrant[] },
): BundleAccess | null {
  if (roleAtLeast(user.role, 'admin')) return 'manage';
  if (bundle.createdBy !== null && bundle.createdBy === user.userId) return 'use';
  let access: BundleAccess | null = null;
  for (const share of bundle.shares) {
    const mine = share.grantee === 'user' ? share.id === user.userId : user.teamIds.has(share.id);
    if (!mine) continue;
    if (share.access === 'use') return 'use';
    access = 'view';
  }
  return access;
}

/**
 * Whether a user "may use" a bundle on `/mcp/gateway` (openapi.yaml, `GatewaySettings`): admins
 * and owners every bundle; members their own and those shared with them, or a team of theirs, for use.
 */
export function mayUseBundle(
  user: BundleUser,
  bundle: { readonly createdBy: string | null; readonly shares: readonly BundleGrant[] },
): boolean {
  const access = bundleAccess(user, bundle);
  return access === 'manage' || access === 'use';
}
