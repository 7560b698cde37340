import { roleAtLeast, type Role } from './principal.js';

/**
 * Whether a user "may use" a bundle on `/mcp/gateway` (openapi.yaml, `GatewaySettings`): admins
 * and owners every bundle; members the bundles they created. The contract has no sharing
 * operation, so "created by" is the whole rule for members; anything else a member reaches
 * through a bundle key on `/mcp/bundle/{bundle_key}`. One function, so the settings check and
 * the gateway's view can never disagree.
 */
export function mayUseBundle(
  user: { readonly userId: string; readonly role: Role },
  bundle: { readonly createdBy: string | null },
): boolean {
  return roleAtLeast(user.role, 'admin') || (bundle.createdBy !== null && bundle.createdBy === user.userId);
}
