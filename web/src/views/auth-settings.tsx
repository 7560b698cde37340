import { useEffect, useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, intOrNull, lines, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import {
  Button,
  Checkbox,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  PageHeader,
  Pill,
  Section,
  SelectField,
  TextArea,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';

type Provider = Schema<'OAuthProvider'>;

/** Who may sign in (domains, admin emails, token lifetimes) and the OAuth login providers. */
export function AuthSettingsView() {
  return (
    <>
      <PageHeader
        title="Sign-in & OAuth"
        intro="Who may sign in, how long sessions and keys last, and the OAuth providers on the sign-in page."
      />
      <SettingsSection />
      <ProvidersSection />
    </>
  );
}

function SettingsSection() {
  const settings = useAsync(() => call(api.GET('/api/v1/settings/auth')), []);
  return (
    <Section title="Sign-in rules">
      <Loaded state={settings} feature="Authentication settings">
        {(s) => <SettingsForm settings={s} onSaved={settings.set} />}
      </Loaded>
    </Section>
  );
}

function SettingsForm(props: { settings: Schema<'AuthSettingsResponse'>; onSaved: (s: Schema<'AuthSettingsResponse'>) => void }) {
  const s = props.settings;
  const [domains, setDomains] = useState(s.allowed_domains.join('\n'));
  const [admins, setAdmins] = useState(s.admin_emails.join('\n'));
  const [minutes, setMinutes] = useState(String(s.access_token_expire_minutes));
  const [days, setDays] = useState(s.api_key_max_lifetime_days === null ? '' : String(s.api_key_max_lifetime_days));
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaved(false);
    setErrors(NO_ERRORS);
    try {
      const updated = await call(
        api.PATCH('/api/v1/settings/auth', {
          body: {
            allowed_domains: lines(domains).map((d) => d.toLowerCase()),
            admin_emails: lines(admins),
            access_token_expire_minutes: Number(minutes),
            api_key_max_lifetime_days: intOrNull(days),
          },
        }),
      );
      props.onSaved(updated);
      setSaved(true);
    } catch (err) {
      setErrors(formErrors(err, ['allowed_domains', 'admin_emails', 'access_token_expire_minutes', 'api_key_max_lifetime_days']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="form-grid">
      <TextArea
        label="Allowed email domains"
        name="allowed_domains"
        rows={3}
        mono
        value={domains}
        onValue={setDomains}
        error={errors.fields.allowed_domains}
        hint="One per line. People with a verified email in these domains may sign in without an invitation. Empty: only existing users and invitees."
      />
      <TextArea
        label="Admin emails"
        name="admin_emails"
        rows={3}
        mono
        value={admins}
        onValue={setAdmins}
        error={errors.fields.admin_emails}
        hint="One per line. They become admins when they first sign in."
      />
      <TextField
        label="Session lifetime (minutes)"
        name="access_token_expire_minutes"
        type="number"
        min={5}
        max={43200}
        required
        value={minutes}
        onValue={setMinutes}
        error={errors.fields.access_token_expire_minutes}
      />
      <TextField
        label="Longest API key lifetime (days)"
        name="api_key_max_lifetime_days"
        type="number"
        min={1}
        max={3650}
        value={days}
        onValue={setDays}
        error={errors.fields.api_key_max_lifetime_days}
        hint="Blank: keys may never expire."
      />
      <div class="wide">
        <FormError message={errors.form} />
        {saved && (
          <p class="notice ok" role="status">
            Saved.
          </p>
        )}
        <p class="muted small">
          Last changed: <Time iso={s.updated_at} />
        </p>
      </div>
      <div class="form-actions wide">
        <Button type="submit" variant="primary" busy={busy}>
          Save sign-in rules
        </Button>
      </div>
    </form>
  );
}

function ProvidersSection() {
  const providers = useAsync(() => call(api.GET('/api/v1/settings/auth/providers')), []);
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();

  const remove = async (p: Provider) => {
    const ok = await confirm({
      title: `Delete ${p.display_name}?`,
      body: (
        <p>
          The provider and its stored client secret are deleted. People who signed in with it keep their accounts but cannot sign in with it
          again.
        </p>
      ),
      confirm: 'Delete provider',
    });
    if (!ok) return;
    setError(null);
    try {
      await call(api.DELETE('/api/v1/settings/auth/providers/{provider_type}', { params: { path: { provider_type: p.provider_type } } }));
      await providers.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <Section
      title="OAuth providers"
      actions={
        <Button variant="primary" onClick={() => setEditing('new')}>
          Add provider
        </Button>
      }
    >
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={providers} feature="OAuth providers">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No OAuth provider yet: people sign in with API keys only.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Provider</th>
                    <th scope="col">Type</th>
                    <th scope="col">Client id</th>
                    <th scope="col">Secret</th>
                    <th scope="col">State</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((p) => (
                    <tr key={p.id}>
                      <th scope="row">{p.display_name}</th>
                      <td>
                        <code>{p.provider_type}</code>
                      </td>
                      <td class="wrap">
                        <code>{p.client_id}</code>
                      </td>
                      <td>{p.has_client_secret ? <Pill tone="ok">stored</Pill> : <Pill tone="warn">missing</Pill>}</td>
                      <td>{p.is_enabled ? <Pill tone="ok">enabled</Pill> : <Pill tone="neutral">disabled</Pill>}</td>
                      <td class="row-actions">
                        <Button small onClick={() => setEditing(p)}>
                          Edit
                        </Button>
                        <Button small variant="danger" onClick={() => remove(p)}>
                          Delete
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      <Dialog
        title={editing === 'new' ? 'Add an OAuth provider' : editing ? `Edit ${editing.display_name}` : ''}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
      >
        {editing && (
          <ProviderForm
            provider={editing === 'new' ? undefined : editing}
            onCancel={() => setEditing(null)}
            onDone={() => {
              setEditing(null);
              void providers.reload();
            }}
          />
        )}
      </Dialog>
      {confirmNode}
    </Section>
  );
}

type Kind = 'github' | 'google' | 'oidc' | 'custom';
const CONFIG_URLS = ['issuer', 'discovery_url', 'authorization_url', 'token_url', 'userinfo_url'] as const;

function ProviderForm(props: { provider?: Provider; onDone: () => void; onCancel: () => void }) {
  const p = props.provider;
  const initialKind: Kind = !p
    ? 'github'
    : p.provider_type === 'github' || p.provider_type === 'google' || p.provider_type === 'oidc'
      ? p.provider_type
      : 'custom';
  const [kind, setKind] = useState<Kind>(initialKind);
  const [type, setType] = useState(p?.provider_type ?? 'github');
  const [displayName, setDisplayName] = useState(p?.display_name ?? 'GitHub');
  const [clientId, setClientId] = useState(p?.client_id ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [enabled, setEnabled] = useState(p?.is_enabled ?? true);
  const [order, setOrder] = useState(String(p?.display_order ?? 0));
  const cfg = (p?.config ?? {}) as Record<string, unknown>;
  const [urls, setUrls] = useState<Record<string, string>>(
    Object.fromEntries(CONFIG_URLS.map((k) => [k, typeof cfg[k] === 'string' ? (cfg[k] as string) : ''])),
  );
  const [scopes, setScopes] = useState(Array.isArray(cfg.scopes) ? (cfg.scopes as string[]).join(' ') : '');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  useEffect(() => {
    if (p) return;
    if (kind === 'github' || kind === 'google' || kind === 'oidc') setType(kind);
    setDisplayName(kind === 'github' ? 'GitHub' : kind === 'google' ? 'Google' : kind === 'oidc' ? 'Single sign-on' : '');
  }, [kind]);

  const callbackUrl = `${location.origin}/api/v1/auth/callback/${type || '…'}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    const config: Schema<'OAuthProviderConfig'> = {};
    for (const k of CONFIG_URLS) if (urls[k]?.trim()) config[k] = urls[k]!.trim();
    const scopeList = scopes.split(/[\s,]+/).filter(Boolean);
    if (scopeList.length) config.scopes = scopeList;
    try {
      if (!p) {
        await call(
          api.POST('/api/v1/settings/auth/providers', {
            body: {
              provider_type: type.trim(),
              display_name: displayName.trim(),
              client_id: clientId.trim(),
              client_secret: clientSecret,
              is_enabled: enabled,
              display_order: Number(order) || 0,
              ...(Object.keys(config).length ? { config } : {}),
            },
          }),
        );
      } else {
        await call(
          api.PATCH('/api/v1/settings/auth/providers/{provider_type}', {
            params: { path: { provider_type: p.provider_type } },
            body: {
              display_name: displayName.trim(),
              client_id: clientId.trim(),
              is_enabled: enabled,
              display_order: Number(order) || 0,
              config,
              ...(clientSecret ? { client_secret: clientSecret } : {}),
            },
          }),
        );
      }
      setClientSecret('');
      props.onDone();
    } catch (err) {
      setErrors(
        formErrors(err, [
          'provider_type',
          'display_name',
          'client_id',
          'client_secret',
          'is_enabled',
          'display_order',
          'config',
          ...CONFIG_URLS.map((k) => `config.${k}`),
          'config.scopes',
        ]),
      );
    } finally {
      setBusy(false);
    }
  };

  const f = errors.fields;
  const needsEndpoints = kind === 'oidc' || kind === 'custom';
  return (
    <form onSubmit={submit} class="form-grid" autocomplete="off">
      {!p && (
        <SelectField
          label="Provider"
          name="kind"
          value={kind}
          onValue={setKind}
          options={[
            { value: 'github', label: 'GitHub' },
            { value: 'google', label: 'Google' },
            { value: 'oidc', label: 'OpenID Connect (any issuer)' },
            { value: 'custom', label: 'Custom OAuth 2.0' },
          ]}
        />
      )}
      <TextField
        label="Type (path key)"
        name="provider_type"
        value={type}
        onValue={setType}
        disabled={!!p || kind !== 'custom'}
        required
        error={f.provider_type}
        hint="Lower-case letters, digits, - and _."
      />
      <TextField label="Button label" name="display_name" value={displayName} onValue={setDisplayName} required error={f.display_name} />
      <TextField label="Client id" name="client_id" value={clientId} onValue={setClientId} required error={f.client_id} />
      <TextField
        label="Client secret"
        name="client_secret"
        type="password"
        autocomplete="new-password"
        value={clientSecret}
        onValue={setClientSecret}
        required={!p}
        error={f.client_secret}
        hint={
          p
            ? p.has_client_secret
              ? 'A secret is stored (never shown). Leave blank to keep it.'
              : 'No secret stored yet.'
            : 'Stored encrypted; never shown again.'
        }
      />
      <TextField
        label="Order on the sign-in page"
        name="display_order"
        type="number"
        min={0}
        max={10000}
        value={order}
        onValue={setOrder}
        error={f.display_order}
      />
      {needsEndpoints && (
        <>
          {kind === 'oidc' && (
            <TextField
              label="Issuer URL"
              name="config.issuer"
              type="url"
              value={urls.issuer ?? ''}
              onValue={(v) => setUrls({ ...urls, issuer: v })}
              error={f['config.issuer']}
              wide
            />
          )}
          <TextField
            label="Discovery URL"
            name="config.discovery_url"
            type="url"
            value={urls.discovery_url ?? ''}
            onValue={(v) => setUrls({ ...urls, discovery_url: v })}
            error={f['config.discovery_url']}
            hint="…/.well-known/openid-configuration"
            wide
          />
          {kind === 'custom' &&
            (['authorization_url', 'token_url', 'userinfo_url'] as const).map((k) => (
              <TextField
                key={k}
                label={k
                  .replace('_url', ' URL')
                  .replace('userinfo', 'Userinfo')
                  .replace('authorization', 'Authorization')
                  .replace('token', 'Token')}
                name={`config.${k}`}
                type="url"
                value={urls[k] ?? ''}
                onValue={(v) => setUrls({ ...urls, [k]: v })}
                error={f[`config.${k}`]}
                wide
              />
            ))}
        </>
      )}
      <TextField
        label="Scopes"
        name="config.scopes"
        value={scopes}
        onValue={setScopes}
        error={f['config.scopes']}
        hint="Space-separated; blank: the provider's defaults."
        wide
      />
      <Checkbox name="is_enabled" label="Offer on the sign-in page" checked={enabled} onValue={setEnabled} />
      <div class="wide">
        <p class="muted small">
          Register this redirect URI at the provider: <code class="wrap">{callbackUrl}</code>
        </p>
        <FormError message={errors.form} />
      </div>
      <div class="form-actions wide">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {p ? 'Save provider' : 'Add provider'}
        </Button>
      </div>
    </form>
  );
}
