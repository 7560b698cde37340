import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, GoneError, NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { DbInvitationRow, InvitationsStore, InvitationStatus } from '../../stores/invitations-store.js';
import type { UsersStore } from '../../stores/users-store.js';
import type { OAuthProvidersService } from './oauth-providers-service.js';
import { pageResult, pageWindow, type PageOf, type PageQuery } from '../pagination.js';
import type { Principal } from '../../domain/principal.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';

type Schemas = components['schemas'];
/** An invitation as the API shows it (never its token). */
export type InvitationView = Schemas['Invitation'];

/** SHA-256 (hex) of an invitation token: the only form it is stored or looked up in. */
export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The state of an invitation at `now`. */
export function invitationStatus(row: DbInvitationRow, now: Date): InvitationStatus {
  if (row.accepted_at) return 'accepted';
  if (row.revoked_at) return 'revoked';
  if (row.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'pending';
}

/**
 * Invitations. A token is 256 random bits (base64url, prefixed `tginv_`), shown once at creation;
 * only its SHA-256 is stored. Acceptance happens in the OAuth callback (OAuthLoginService), in the
 * same transaction that creates the user. Unknown, accepted and revoked tokens answer 404; an
 * expired one 410 (`gone`), so the invitee knows to ask for a new invitation.
 */
export class InvitationsService {
  constructor(
    private readonly store: InvitationsStore,
    private readonly users: UsersStore,
    private readonly providers: OAuthProvidersService,
    private readonly clock: Clock,
    private readonly tx: Transactor,
    private readonly activity: ActivityLog,
  ) {}

  view(row: DbInvitationRow): InvitationView {
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      status: invitationStatus(row, this.clock.now()),
      invited_by: row.invited_by,
      invited_by_name: row.invited_by_name,
      expires_at: row.expires_at.toISOString(),
      created_at: row.created_at.toISOString(),
      accepted_at: row.accepted_at?.toISOString() ?? null,
    };
  }

  async create(
    caller: Principal,
    input: Partial<Schemas['InvitationCreate']> & Pick<Schemas['InvitationCreate'], 'email'>,
    baseUrl: string,
  ): Promise<Schemas['InvitationWithToken']> {
    const role = input.role ?? 'member';
    if (role === 'owner' && caller.role !== 'owner') throw new ForbiddenError('Only owners may invite owners', 'forbidden');
    const now = this.clock.now();
    if (await this.users.findByEmail(input.email)) throw new ConflictError('A user with this email already exists', 'conflict');
    if (await this.store.findPendingByEmail(input.email, now)) {
      throw new ConflictError('A pending invitation for this email already exists', 'conflict');
    }
    const token = `tginv_${randomBytes(32).toString('base64url')}`;
    const row = await this.tx.transaction(async (stores) => {
      const created = await stores.invitations.insert({
        id: randomUUID(),
        email: input.email,
        role,
        token_hash: hashInvitationToken(token),
        invited_by: caller.userId,
        expires_at: new Date(now.getTime() + (input.expires_in_hours ?? 168) * 3_600_000),
      });
      // Never the token: the invitee's credential until it is accepted.
      await this.activity.record(stores, {
        action: 'invitation.create',
        target: { type: 'invitation', id: created.id, name: created.email },
        details: { role, expires_at: created.expires_at.toISOString() },
      });
      return created;
    });
    const acceptUrl = `${baseUrl}/invitations/accept?token=${encodeURIComponent(token)}`;
    // Accepting means signing in through a provider: with none enabled, say so now, not at the accept page.
    const { items: providers } = await this.providers.listEnabled();
    const warning = providers.length
      ? null
      : 'No sign-in provider is enabled, so nobody can accept this invitation yet: enable one in the authentication settings, or add the user directly (POST /api/v1/users) and hand them the API key it returns.';
    return { ...this.view(row), token, accept_url: acceptUrl, warning };
  }

  async list(query: PageQuery & { status?: InvitationStatus | undefined }): Promise<PageOf<InvitationView>> {
    const window = pageWindow(query);
    const { rows, total } = await this.store.list(window, query.status, this.clock.now());
    return pageResult(window, rows, total, (r) => this.view(r));
  }

  async revoke(id: string): Promise<void> {
    await this.tx.transaction(async (stores) => {
      // Locked: of two concurrent revokes (or a revoke racing an accept) one wins, the other sees the result.
      const row = await stores.invitations.findById(id, true);
      if (!row) throw new NotFoundError('No such invitation');
      const status = invitationStatus(row, this.clock.now());
      if (status !== 'pending') throw new ConflictError(`The invitation is ${status}, not pending`, 'invitation_not_pending');
      await stores.invitations.markRevoked(id, this.clock.now());
      await this.activity.record(stores, {
        action: 'invitation.revoke',
        target: { type: 'invitation', id, name: row.email },
        details: { role: row.role },
      });
    });
  }

  /** A pending invitation by token; 404 unknown/accepted/revoked, 410 expired. */
  async findUsable(token: string, store: InvitationsStore = this.store, forUpdate = false): Promise<DbInvitationRow> {
    const row = await store.findByTokenHash(hashInvitationToken(token), forUpdate);
    const status = row ? invitationStatus(row, this.clock.now()) : undefined;
    if (!row || status === 'accepted' || status === 'revoked') {
      throw new NotFoundError('This invitation does not exist or was already used or revoked', 'invitation_not_found');
    }
    if (status === 'expired') throw new GoneError('This invitation has expired', 'gone');
    return row;
  }

  async acceptInfo(token: string): Promise<Schemas['InvitationAcceptInfo']> {
    const row = await this.findUsable(token);
    const { items: providers } = await this.providers.listEnabled();
    return {
      email: row.email,
      role: row.role,
      invited_by_name: row.invited_by_name,
      expires_at: row.expires_at.toISOString(),
      available_providers: providers.map((p) => p.provider_type),
    };
  }
}
