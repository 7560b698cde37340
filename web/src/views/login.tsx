import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import type { User } from '../lib/session.js';
import { Button, FormError, Loading, TextField } from '../ui/kit.js';

/** Where an OAuth login returns to: the page the user asked for (a path of this site only). */
export function returnPath(path: string, query: Record<string, string>): string {
  if (path === '/login' || !path.startsWith('/') || path.startsWith('//')) return '/';
  const qs = new URLSearchParams(query).toString();
  return qs ? `${path}?${qs}` : path;
}

export function oauthLoginUrl(providerType: string, options: { redirectTo?: string; invitation?: string }): string {
  const params = new URLSearchParams();
  if (options.redirectTo) params.set('redirect_to', options.redirectTo);
  if (options.invitation) params.set('invitation', options.invitation);
  const qs = params.toString();
  return `/api/v1/auth/login/${encodeURIComponent(providerType)}${qs ? `?${qs}` : ''}`;
}

/**
 * Sign-in: a button per enabled OAuth provider (a real navigation to the login operation, which
 * comes back with the `access_token` cookie), and an API key form that exchanges the key once
 * for the same cookie (`POST /api/v1/auth/session`). The key is never stored in the browser.
 */
export function LoginView(props: { reason: string | null; onSignedIn: (user: User) => void }) {
  const location = useLocation();
  const [providers, setProviders] = useState<Schema<'LoginProvider'>[] | null>(null);
  const [providersError, setProvidersError] = useState<string | null>(null);
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  useEffect(() => {
    document.title = 'Sign in · Toolgate';
    call(api.GET('/api/v1/auth/providers'), { quiet401: true }).then(
      (r) => setProviders(r.items),
      () => {
        setProviders([]);
        setProvidersError('The sign-in providers could not be loaded.');
      },
    );
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const res = await call(api.POST('/api/v1/auth/session', { body: { api_key: key.trim() } }), { quiet401: true });
      setKey('');
      props.onSignedIn(res.user);
    } catch (err) {
      // A refused key (401, or 403 for a key without the scopes) is about the field itself.
      if (err instanceof ApiError && (err.status === 401 || err.status === 403))
        setErrors({ fields: { api_key: err.message }, form: null });
      else setErrors(formErrors(err, ['api_key']));
    } finally {
      setBusy(false);
    }
  };

  const redirectTo = returnPath(location.path, location.query);

  return (
    <div class="login card">
      <h1>Sign in to Toolgate</h1>
      {props.reason && (
        <p class="notice info" role="status">
          {props.reason}
        </p>
      )}
      {providers === null ? (
        <Loading label="Loading sign-in options…" />
      ) : providers.length > 0 ? (
        <div class="providers">
          {providers.map((p) => (
            <a key={p.provider_type} class="btn primary block" href={oauthLoginUrl(p.provider_type, { redirectTo })}>
              Continue with {p.display_name}
            </a>
          ))}
          <div class="divider">
            <span>or use an API key</span>
          </div>
        </div>
      ) : (
        <p class="muted">
          No OAuth provider is configured yet. Sign in with an API key, for example the one printed by{' '}
          <code>npm run toolgate -- bootstrap</code>.
        </p>
      )}
      {providersError && <p class="notice warn">{providersError}</p>}
      <form onSubmit={submit} class="stack" autocomplete="off">
        <TextField
          label="API key"
          name="api_key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onValue={setKey}
          required
          error={errors.fields.api_key}
          hint="Used once to open a browser session; it is not kept by the browser. The key needs the api:read and api:write scopes."
        />
        <FormError message={errors.fields.api_key ? null : errors.form} />
        <Button type="submit" variant="primary" busy={busy} disabled={!key.trim()}>
          Sign in with API key
        </Button>
      </form>
    </div>
  );
}
