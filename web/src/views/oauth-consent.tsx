import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call } from '../lib/api.js';
import { useAsync } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { Button, ErrorNotice, Loaded, Pill } from '../ui/kit.js';

const KIND: Record<string, string> = {
  metadata_document: 'identified by its published metadata document',
  dynamic: 'registered itself with this server',
  admin: 'registered by an administrator',
};

/**
 * The consent page of Toolgate's authorization server (`/oauth/consent?request=…`): the signed-in
 * person sees which application asks to use their MCP tools, where the browser goes back to, the
 * scopes and the bundles it will reach, and approves or denies. Either way the browser then goes
 * to the application's redirect URI with the answer.
 */
export function OAuthConsentView() {
  const location = useLocation();
  const session = useSession();
  const id = location.query.request ?? '';
  const request = useAsync(
    () => call(api.GET('/api/v1/oauth/authorizations/{authorization_id}', { params: { path: { authorization_id: id } } })),
    [id],
  );
  const [busy, setBusy] = useState<'approve' | 'deny' | null>(null);
  const [error, setError] = useState<unknown>(null);

  const decide = async (approve: boolean) => {
    setBusy(approve ? 'approve' : 'deny');
    setError(null);
    try {
      const { redirect_to } = await call(
        api.POST('/api/v1/oauth/authorizations/{authorization_id}/decision', {
          params: { path: { authorization_id: id } },
          body: { approve },
        }),
      );
      window.location.assign(redirect_to);
    } catch (err) {
      setError(err);
      setBusy(null);
    }
  };

  return (
    <section class="card consent" aria-labelledby="consent-title">
      <Loaded state={request} feature="Authorization requests">
        {(r) => (
          <>
            <h1 id="consent-title">
              Allow <strong>{r.client.name}</strong> to use your tools?
            </h1>
            <p class="muted">
              Signed in as {session?.user.email}. This application {KIND[r.client.kind] ?? 'is registered'}
              {r.client.client_uri && (
                <>
                  {' '}
                  (<span class="mono">{r.client.client_uri}</span>)
                </>
              )}
              .
            </p>
            <dl class="facts">
              <dt>Sends you back to</dt>
              <dd>
                <span class="mono" data-testid="redirect-host">
                  {r.redirect_host}
                </span>{' '}
                {r.loopback_redirect && <Pill tone="info">an application on this computer</Pill>}
              </dd>
              <dt>Asks for</dt>
              <dd>
                {r.scopes.map((s) => (
                  <Pill key={s} tone="neutral">
                    {s === 'mcp' ? 'mcp: list and call your MCP tools' : s}
                  </Pill>
                ))}
              </dd>
              <dt>{r.resource_kind === 'bundle' ? 'Bundle' : 'Reaches'}</dt>
              <dd>
                {r.bundles.length === 0 ? (
                  <span class="muted">none of your bundles yet (your gateway is empty)</span>
                ) : (
                  <ul class="plain" data-testid="bundles">
                    {r.bundles.map((b) => (
                      <li key={b.id}>{b.name}</li>
                    ))}
                  </ul>
                )}
                <div class="muted small mono">{r.resource}</div>
              </dd>
            </dl>
            <p class="muted small">
              Only approve applications you trust and started yourself. You can disconnect it at any time under Connected apps.
            </p>
            {error !== null && <ErrorNotice error={error} />}
            <div class="actions">
              <Button variant="primary" busy={busy === 'approve'} disabled={busy !== null} onClick={() => decide(true)}>
                Approve
              </Button>
              <Button busy={busy === 'deny'} disabled={busy !== null} onClick={() => decide(false)}>
                Deny
              </Button>
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}
