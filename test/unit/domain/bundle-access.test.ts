import { expect } from 'chai';
import { bundleAccess, mayUseBundle, NO_TEAMS, type BundleGrant } from '../../../src/domain/bundle-access.js';

describe('bundleAccess', () => {
  const bundle = (createdBy: string | null, shares: BundleGrant[] = []) => ({ createdBy, shares });
  const member = (userId: string, teams: string[] = []) => ({ userId, role: 'member' as const, teamIds: new Set(teams) });

  it('lets admins and owners manage (and so use) every bundle', () => {
    for (const role of ['admin', 'owner'] as const) {
      expect(bundleAccess({ userId: 'a', role, teamIds: NO_TEAMS }, bundle(null))).to.equal('manage');
      expect(mayUseBundle({ userId: 'a', role, teamIds: NO_TEAMS }, bundle('someone'))).to.equal(true);
    }
  });

  it('lets a member use what they created, nothing else unshared', () => {
    expect(bundleAccess(member('m'), bundle('m'))).to.equal('use');
    expect(bundleAccess(member('m'), bundle('x'))).to.equal(null);
    expect(bundleAccess(member('m'), bundle(null))).to.equal(null);
  });

  it('grants by user or team share; use wins over view, whatever the order', () => {
    const viewTeam: BundleGrant = { grantee: 'team', id: 't1', access: 'view' };
    const useUser: BundleGrant = { grantee: 'user', id: 'm', access: 'use' };
    expect(bundleAccess(member('m', ['t1']), bundle('x', [viewTeam]))).to.equal('view');
    expect(mayUseBundle(member('m', ['t1']), bundle('x', [viewTeam]))).to.equal(false);
    expect(bundleAccess(member('m', ['t1']), bundle('x', [viewTeam, useUser]))).to.equal('use');
    expect(bundleAccess(member('m', ['t1']), bundle('x', [useUser, viewTeam]))).to.equal('use');
    // A share with a team the member is not in, or with another user, gives nothing.
    expect(bundleAccess(member('m', ['t2']), bundle('x', [viewTeam, { grantee: 'user', id: 'o', access: 'use' }]))).to.equal(null);
    // A team id equal to the user's id is still a team grant.
    expect(bundleAccess(member('m'), bundle('x', [{ grantee: 'team', id: 'm', access: 'use' }]))).to.equal(null);
  });
});
