import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, lines, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import {
  Button,
  Checkbox,
  ErrorNotice,
  FormError,
  Loaded,
  PageHeader,
  Section,
  SelectField,
  TextArea,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';

type Settings = Schema<'GeneralSettingsResponse'>;
type Registration = Settings['oauth_client_registration'];

const REGISTRATION: { value: Registration; label: string }[] = [
  { value: 'open', label: 'Open: any client may register' },
  { value: 'admin_approval', label: 'Admin approval: new clients wait for an admin' },
  { value: 'off', label: 'Off: no dynamic registration' },
];

const NUMBERS: { key: keyof Settings & keyof Schema<'GeneralSettingsUpdate'>; label: string; min: number; max: number; hint?: string }[] = [
  { key: 'log_retention_days', label: 'Tool-call log retention (days)', min: 1, max: 3650 },
  { key: 'activity_log_retention_days', label: 'Activity log retention (days)', min: 1, max: 3650 },
  {
    key: 'default_rate_limit_rpm',
    label: 'Default rate limit (requests per minute)',
    min: 1,
    max: 100000,
    hint: 'For API keys without a limit of their own.',
  },
  { key: 'mcp_session_idle_timeout_minutes', label: 'MCP session idle timeout (minutes)', min: 1, max: 1440 },
  {
    key: 'upstream_call_timeout_ms',
    label: 'Default tool-call timeout (ms)',
    min: 100,
    max: 600000,
    hint: 'For servers registered without one.',
  },
  { key: 'health_check_interval_seconds', label: 'Default health check interval (s)', min: 10, max: 86400 },
];

/** General settings: retention, limits, timeouts, allow-lists, registry; and the reset to defaults. */
export function GeneralSettingsView() {
  const isAdmin = useIsAdmin();
  const settings = useAsync(() => call(api.GET('/api/v1/settings/general')), []);
  // Kept here: a save replaces the form (it is keyed by the settings' version), and the
  // confirmation must outlive that.
  const [saved, setSaved] = useState(false);
  return (
    <>
      <PageHeader
        title="General settings"
        intro={
          isAdmin
            ? 'Retention, limits and timeouts of this installation.'
            : 'Retention, limits and timeouts of this installation (read-only for members).'
        }
      />
      <Loaded state={settings} feature="General settings">
        {(s) => (
          <SettingsForm
            key={s.updated_at ?? 'defaults'}
            settings={s}
            readOnly={!isAdmin}
            saved={saved}
            onEdit={() => setSaved(false)}
            onSaved={(next) => {
              settings.set(next);
              setSaved(true);
            }}
          />
        )}
      </Loaded>
    </>
  );
}

/** The environment variable that sets a field (it wins over the stored value), if the operator set it. */
const ENVIRONMENT: Partial<Record<Settings['set_by_environment'][number], string>> = {
  default_rate_limit_rpm: 'TOOLGATE_DEFAULT_RATE_LIMIT_RPM',
  allowed_origins: 'TOOLGATE_ALLOWED_ORIGINS',
  outbound_allowlist: 'TOOLGATE_OUTBOUND_ALLOWLIST',
};

function SettingsForm(props: {
  settings: Settings;
  readOnly: boolean;
  saved: boolean;
  onEdit: () => void;
  onSaved: (s: Settings) => void;
}) {
  const s = props.settings;
  const fromEnv = (field: string): string | undefined =>
    (s.set_by_environment as string[]).includes(field) ? ENVIRONMENT[field as keyof typeof ENVIRONMENT] : undefined;
  const envHint = (field: string, hint?: string): string | undefined => {
    const variable = fromEnv(field);
    return variable ? `Set by ${variable} in the server's environment, which wins over this form; change it there.` : hint;
  };
  const [numbers, setNumbers] = useState<Record<string, string>>(Object.fromEntries(NUMBERS.map((n) => [n.key, String(s[n.key])])));
  const [origins, setOrigins] = useState(s.allowed_origins.join('\n'));
  const [outbound, setOutbound] = useState(s.outbound_allowlist.join('\n'));
  const [registryUrl, setRegistryUrl] = useState(s.registry_url ?? '');
  const [registration, setRegistration] = useState<Registration>(s.oauth_client_registration);
  const [registryToken, setRegistryToken] = useState('');
  const [clearToken, setClearToken] = useState(false);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [resetError, setResetError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    props.onEdit();
    setErrors(NO_ERRORS);
    try {
      // Fields the environment sets are not sent: the variable holds them.
      const body: Schema<'GeneralSettingsUpdate'> = { registry_url: registryUrl.trim() || null, oauth_client_registration: registration };
      if (!fromEnv('allowed_origins')) body.allowed_origins = lines(origins);
      if (!fromEnv('outbound_allowlist')) body.outbound_allowlist = lines(outbound);
      for (const n of NUMBERS) if (!fromEnv(n.key)) (body as Record<string, unknown>)[n.key] = Number(numbers[n.key]);
      if (registryToken) body.registry_token = registryToken;
      else if (clearToken) body.registry_token = null;
      const updated = await call(api.PUT('/api/v1/settings/general', { body }));
      setRegistryToken('');
      setClearToken(false);
      props.onSaved(updated);
    } catch (err) {
      setErrors(formErrors(err, [...NUMBERS.map((n) => n.key), 'allowed_origins', 'outbound_allowlist', 'registry_url', 'registry_token']));
    } finally {
      setBusy(false);
    }
  };

  const reset = async () => {
    const ok = await confirm({
      title: 'Reset every general setting?',
      body: (
        <>
          <p>This resets retention, limits, timeouts and allow-lists to their defaults, clears the registry credentials, and</p>
          <p>
            <strong>deletes every AI provider configuration</strong> with its stored API key.
          </p>
          <p>Users, keys, servers, bundles and sign-in settings are not touched.</p>
        </>
      ),
      confirm: 'Reset to defaults',
    });
    if (!ok) return;
    setResetError(null);
    try {
      props.onSaved(await call(api.POST('/api/v1/settings/general/reset')));
    } catch (err) {
      setResetError(err);
    }
  };

  const ro = props.readOnly;
  return (
    <>
      <Section title="Settings">
        <form onSubmit={submit} class="form-grid">
          <fieldset disabled={ro} class="contents">
            {NUMBERS.map((n) => (
              <TextField
                key={n.key}
                label={n.label}
                name={n.key}
                type="number"
                min={n.min}
                max={n.max}
                required
                value={numbers[n.key] ?? ''}
                onValue={(v) => setNumbers({ ...numbers, [n.key]: v })}
                error={errors.fields[n.key]}
                hint={envHint(n.key, n.hint)}
                disabled={!!fromEnv(n.key)}
              />
            ))}
            <TextArea
              label="Allowed browser origins (MCP endpoints)"
              name="allowed_origins"
              rows={3}
              mono
              value={origins}
              onValue={setOrigins}
              error={errors.fields.allowed_origins}
              hint={envHint('allowed_origins', 'One per line, scheme://host[:port]. Requests without an Origin header are not affected.')}
              disabled={!!fromEnv('allowed_origins')}
            />
            <TextArea
              label="Outbound allow-list"
              name="outbound_allowlist"
              rows={3}
              mono
              value={outbound}
              onValue={setOutbound}
              error={errors.fields.outbound_allowlist}
              hint={envHint('outbound_allowlist', 'Hosts or CIDR ranges the server may reach although they are private or loopback.')}
              disabled={!!fromEnv('outbound_allowlist')}
            />
            <SelectField
              label="MCP client registration (OAuth)"
              name="oauth_client_registration"
              value={registration}
              onValue={setRegistration}
              options={REGISTRATION}
              hint="How MCP clients that connect by OAuth may register themselves (RFC 7591). Clients with a metadata document URL and clients you pre-register under Connected apps work whatever this says."
            />
            <TextField
              label="Registry URL"
              name="registry_url"
              type="url"
              value={registryUrl}
              onValue={setRegistryUrl}
              error={errors.fields.registry_url}
              hint="Blank: the built-in default."
              wide
            />
            {!ro && (
              <>
                <TextField
                  label="Registry token"
                  name="registry_token"
                  type="password"
                  autocomplete="new-password"
                  value={registryToken}
                  onValue={setRegistryToken}
                  error={errors.fields.registry_token}
                  hint={s.has_registry_token ? 'A token is stored (never shown). Leave blank to keep it.' : 'No token stored.'}
                />
                {s.has_registry_token && (
                  <Checkbox
                    name="clear_registry_token"
                    label="Remove the stored registry token"
                    checked={clearToken}
                    onValue={setClearToken}
                  />
                )}
              </>
            )}
          </fieldset>
          <div class="wide">
            <FormError message={errors.form} />
            {props.saved && (
              <p class="notice ok" role="status">
                Saved.
              </p>
            )}
            <p class="muted small">
              Last changed: <Time iso={s.updated_at} />
            </p>
          </div>
          {!ro && (
            <div class="form-actions wide">
              <Button type="submit" variant="primary" busy={busy}>
                Save settings
              </Button>
            </div>
          )}
        </form>
      </Section>
      {!ro && (
        <Section title="Reset">
          <p>Restore every general setting to its default. This also deletes all AI provider configurations.</p>
          {resetError !== null && <ErrorNotice error={resetError} />}
          <Button variant="danger" onClick={reset}>
            Reset to defaults…
          </Button>
          {confirmNode}
        </Section>
      )}
    </>
  );
}
