import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, intOrNull, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import {
  Button,
  CheckGroup,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  PageHeader,
  Pager,
  Pill,
  SecretOnce,
  SelectField,
  TextArea,
  TextField,
  Time,
  formatDate,
  useConfirm,
} from '../ui/kit.js';

type ApiKey = Schema<'ApiKey'>;
type Scope = Schema<'ApiKeyScope'>;

const SCOPES: { value: Scope; label: string; hint: string }[] = [
  { value: 'api:read', label: 'api:read', hint: 'Read operations under /api/v1' },
  { value: 'api:write', label: 'api:write', hint: 'Changes under /api/v1' },
  { value: 'mcp', label: 'mcp', hint: 'The /mcp/gateway endpoint' },
];

const GRACE: { value: string; label: string }[] = [
  { value: '0', label: 'Revoke the old key now' },
  { value: '3600', label: 'Keep the old key for 1 hour' },
  { value: '86400', label: 'Keep the old key for 1 day' },
  { value: '604800', label: 'Keep the old key for 7 days' },
  { value: '2592000', label: 'Keep the old key for 30 days' },
];

/** A key's state as a pill; a rotated key in its grace period says until when it still works. */
export function KeyState(props: { apiKey: ApiKey }) {
  const k = props.apiKey;
  if (k.state === 'active') return <Pill tone="ok">active</Pill>;
  if (k.state === 'rotated')
    return k.is_active ? (
      <Pill tone="warn" title="Replaced by a newer key; this one works until its grace period ends">
        rotated (grace period)
      </Pill>
    ) : (
      <Pill tone="neutral" title="Replaced by a newer key">
        rotated
      </Pill>
    );
  return <Pill tone={k.state === 'expired' ? 'neutral' : 'bad'}>{k.state}</Pill>;
}

/** The caller's API keys: create (shown once), rotate with an optional grace period, revoke. */
export function ApiKeysView() {
  const [page, setPage] = useState(1);
  const keys = useAsync(() => call(api.GET('/api/v1/users/me/api-keys', { params: { query: { page, page_size: 25 } } })), [page]);
  const [creating, setCreating] = useState(false);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [shown, setShown] = useState<{ title: string; key: string; note?: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();

  const revoke = async (k: ApiKey) => {
    const ok = await confirm({
      title: `Revoke ${k.name}?`,
      body: (
        <p>
          The key <code>{k.key_prefix}…</code> stops working at once, for every client that uses it. It stays listed as revoked.
        </p>
      ),
      confirm: 'Revoke key',
    });
    if (!ok) return;
    setError(null);
    try {
      await call(api.DELETE('/api/v1/users/me/api-keys/{key_id}', { params: { path: { key_id: k.id } } }));
      await keys.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <PageHeader
        title="API keys"
        intro="Your personal keys for the REST API and the gateway endpoint. A key's value is shown once, when it is created."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create key
          </Button>
        }
      />
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={keys} feature="API keys">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>You have no API keys yet.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Your API keys</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Scopes</th>
                      <th scope="col">State</th>
                      <th scope="col">Last used</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((k) => (
                      <tr key={k.id} class={k.is_active ? '' : 'inactive'}>
                        <th scope="row">
                          {k.name}
                          {k.description && <div class="muted small clamp">{k.description}</div>}
                        </th>
                        <td>
                          <code>{k.key_prefix}…</code> {k.environment === 'test' && <Pill tone="info">test</Pill>}
                        </td>
                        <td>{k.scopes.join(', ')}</td>
                        <td>
                          <KeyState apiKey={k} />
                        </td>
                        <td>
                          <Time iso={k.last_used_at} relative />
                          {k.last_used_ip && <div class="muted small">{k.last_used_ip}</div>}
                        </td>
                        <td>{k.expires_at ? <Time iso={k.expires_at} /> : <span class="muted">never</span>}</td>
                        <td class="row-actions">
                          {k.is_active ? (
                            <>
                              {k.state === 'active' && (
                                <Button small onClick={() => setRotating(k)} aria-label={`Rotate ${k.name}`}>
                                  Rotate
                                </Button>
                              )}
                              <Button small variant="danger" onClick={() => revoke(k)} aria-label={`Revoke ${k.name}`}>
                                Revoke
                              </Button>
                            </>
                          ) : (
                            // No action is left for a key that stopped working; the cell still holds a value.
                            <span class="muted" aria-label="No actions">
                              —
                            </span>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="API keys" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog title="Create an API key" open={creating} onClose={() => setCreating(false)}>
        {creating && (
          <CreateKeyForm
            onCancel={() => setCreating(false)}
            onDone={(k) => {
              setCreating(false);
              setShown({ title: 'Your new API key', key: k.key });
              void keys.reload();
            }}
          />
        )}
      </Dialog>
      <Dialog title={rotating ? `Rotate ${rotating.name}` : ''} open={rotating !== null} onClose={() => setRotating(null)}>
        {rotating && (
          <RotateForm
            apiKey={rotating}
            onCancel={() => setRotating(null)}
            onDone={(r) => {
              setRotating(null);
              setShown({
                title: 'Your rotated API key',
                key: r.new_key.key,
                note: r.old_key_revoked
                  ? 'The old key was revoked.'
                  : `The old key keeps working until ${formatDate(r.grace_period_ends_at)}; move your clients to the new one before then.`,
              });
              void keys.reload();
            }}
          />
        )}
      </Dialog>
      <Dialog title={shown?.title ?? ''} open={shown !== null} onClose={() => setShown(null)}>
        {shown && (
          <div class="stack">
            <SecretOnce
              label="API key"
              value={shown.key}
              warning="Copy it now: this is the only time it is shown. Toolgate keeps only a hash."
            />
            {shown.note && (
              <p class="notice info" role="status">
                {shown.note}
              </p>
            )}
            <div class="form-actions">
              <Button variant="primary" onClick={() => setShown(null)}>
                I have stored it
              </Button>
            </div>
          </div>
        )}
      </Dialog>
      {confirmNode}
    </>
  );
}

function CreateKeyForm(props: { onDone: (k: Schema<'ApiKeyWithSecret'>) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [environment, setEnvironment] = useState<Schema<'ApiKeyEnvironment'>>('live');
  const [scopes, setScopes] = useState<Scope[]>(['api:read', 'api:write', 'mcp']);
  const [rpm, setRpm] = useState('');
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const rate = intOrNull(rpm);
      const created = await call(
        api.POST('/api/v1/users/me/api-keys', {
          body: {
            name: name.trim(),
            environment,
            scopes,
            ...(description.trim() ? { description: description.trim() } : {}),
            ...(rate !== null ? { rate_limit_rpm: rate } : {}),
            ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}),
          },
        }),
      );
      props.onDone(created);
    } catch (err) {
      setErrors(formErrors(err, ['name', 'description', 'environment', 'scopes', 'rate_limit_rpm', 'expires_at']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack">
      <TextField label="Name" name="name" value={name} onValue={setName} required maxLength={255} error={errors.fields.name} />
      <TextArea
        label="Description"
        name="description"
        rows={2}
        value={description}
        onValue={setDescription}
        error={errors.fields.description}
      />
      <SelectField
        label="Environment"
        name="environment"
        value={environment}
        onValue={setEnvironment}
        error={errors.fields.environment}
        options={[
          { value: 'live', label: 'live (tg_usr_live_…)' },
          { value: 'test', label: 'test (tg_usr_test_…)' },
        ]}
      />
      <CheckGroup legend="Scopes" name="scopes" options={SCOPES} value={scopes} onValue={setScopes} error={errors.fields.scopes} />
      <TextField
        label="Rate limit (requests per minute)"
        name="rate_limit_rpm"
        type="number"
        min={1}
        value={rpm}
        onValue={setRpm}
        error={errors.fields.rate_limit_rpm}
        hint="Blank: the default of the installation."
      />
      <TextField
        label="Expires on"
        name="expires_at"
        type="date"
        value={expires}
        onValue={setExpires}
        error={errors.fields.expires_at}
        hint="Blank: the longest lifetime allowed."
      />
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Create key
        </Button>
      </div>
    </form>
  );
}

function RotateForm(props: { apiKey: ApiKey; onDone: (r: Schema<'ApiKeyRotationResult'>) => void; onCancel: () => void }) {
  const [grace, setGrace] = useState('0');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const result = await call(
        api.POST('/api/v1/users/me/api-keys/{key_id}/rotate', {
          params: { path: { key_id: props.apiKey.id } },
          body: { grace_period_seconds: Number(grace), ...(name.trim() ? { name: name.trim() } : {}) },
        }),
      );
      props.onDone(result);
    } catch (err) {
      setErrors(formErrors(err, ['grace_period_seconds', 'name']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack">
      <p>
        A new key replaces <code>{props.apiKey.key_prefix}…</code> with the same scopes, rate limit and expiry.
      </p>
      <SelectField
        label="The old key"
        name="grace_period_seconds"
        value={grace}
        onValue={setGrace}
        options={GRACE}
        error={errors.fields.grace_period_seconds}
      />
      <TextField
        label="Name of the new key"
        name="name"
        value={name}
        onValue={setName}
        placeholder={props.apiKey.name}
        error={errors.fields.name}
      />
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Rotate key
        </Button>
      </div>
    </form>
  );
}
