import { useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { api, ApiError, call } from '../lib/api.js';
import { useAsync } from '../lib/hooks.js';
import { ErrorNotice, Loading, Time } from '../ui/kit.js';
import { oauthLoginUrl } from './login.js';

/**
 * The invitation accept page (`accept_url`: `/invitations/accept?token=…`): who invited whom,
 * as what, until when, and a sign-in button per provider that carries the invitation.
 */
export function InvitationAcceptView() {
  const { query } = useLocation();
  const token = query.token ?? '';
  useEffect(() => {
    document.title = 'Accept invitation · Toolgate';
  }, []);
  const info = useAsync(async () => {
    if (!token) return null;
    const [details, providers] = await Promise.all([
      call(api.GET('/api/v1/invitations/accept/{token}', { params: { path: { token } } }), { quiet401: true }),
      call(api.GET('/api/v1/auth/providers'), { quiet401: true }).catch(() => ({ items: [] })),
    ]);
    return { details, providers: providers.items };
  }, [token]);

  return (
    <div class="login card">
      <h1>Accept your invitation</h1>
      {!token ? (
        <p class="notice error" role="alert">
          This link has no invitation token. Open the full link from your invitation.
        </p>
      ) : info.loading && !info.data ? (
        <Loading />
      ) : info.error ? (
        info.error instanceof ApiError && (info.error.status === 404 || info.error.status === 410) ? (
          <p class="notice error" role="alert">
            {info.error.status === 410
              ? 'This invitation has expired. Ask the person who invited you for a new one.'
              : 'This invitation is not valid: it may have been used or revoked already.'}
          </p>
        ) : (
          <ErrorNotice error={info.error} onRetry={info.reload} />
        )
      ) : info.data ? (
        <>
          <p>
            <strong>{info.data.details.invited_by_name}</strong> invited <strong>{info.data.details.email}</strong> to Toolgate as{' '}
            <strong>{info.data.details.role}</strong>.
          </p>
          <p class="muted">
            The invitation expires <Time iso={info.data.details.expires_at} relative /> (<Time iso={info.data.details.expires_at} />
            ). Sign in with the invited email address to accept it.
          </p>
          {(() => {
            const offered = info.data.providers.filter((p) => info.data!.details.available_providers.includes(p.provider_type));
            if (!offered.length)
              return (
                <p class="notice warn">
                  No sign-in provider is enabled yet, so the invitation cannot be accepted. Ask an administrator to configure one.
                </p>
              );
            return (
              <div class="providers">
                {offered.map((p) => (
                  <a
                    key={p.provider_type}
                    class="btn primary block"
                    href={oauthLoginUrl(p.provider_type, { invitation: token, redirectTo: '/' })}
                  >
                    Accept with {p.display_name}
                  </a>
                ))}
              </div>
            );
          })()}
        </>
      ) : null}
    </div>
  );
}
