import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import {
  Button,
  CheckGroup,
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
  useConfirm,
} from '../ui/kit.js';

type Interceptor = Schema<'Interceptor'>;
type Phase = Schema<'InterceptorPhase'>;
type FailureMode = Schema<'InterceptorFailureMode'>;

/**
 * Guardrails (admins): the installation's redaction settings (secrets, personal data) and the
 * webhook interceptors called before and after tool calls. A bundle's own redaction settings are
 * on its page.
 */
export function GuardrailsView() {
  const interceptors = useAsync(() => call(api.GET('/api/v1/interceptors')), []);
  const bundles = useAsync(() => call(api.GET('/api/v1/bundles', { params: { query: { page_size: 100 } } })), []);
  const bundleName = new Map((bundles.data?.items ?? []).map((b) => [b.id, b.name]));
  const [editing, setEditing] = useState<Interceptor | 'new' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();

  const remove = async (i: Interceptor) => {
    if (
      !(await confirm({
        title: `Delete interceptor ${i.name}?`,
        body: 'Calls stop going through it at once on every gateway instance.',
        confirm: 'Delete interceptor',
      }))
    )
      return;
    try {
      await call(api.DELETE('/api/v1/interceptors/{interceptor_id}', { params: { path: { interceptor_id: i.id } } }));
      await interceptors.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <PageHeader
        title="Guardrails"
        intro="What every tool call goes through on both MCP routes: secrets (and, if you choose, personal data) in arguments and results are replaced by [REDACTED:…] and counted in the call's record; interceptors are your webhooks, called before and after calls, that allow, reject or rewrite them."
      />
      {error !== null && <ErrorNotice error={error} />}
      <Section title="Redaction">
        <RedactionSettings />
      </Section>
      <Section
        title="Interceptors"
        actions={
          <Button variant="primary" onClick={() => setEditing('new')}>
            New interceptor
          </Button>
        }
      >
        <Loaded state={interceptors} feature="Interceptors">
          {(data) =>
            data.items.length === 0 ? (
              <Empty>No interceptors: calls go straight to the upstream (after redaction).</Empty>
            ) : (
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Interceptors in call order</caption>
                  <thead>
                    <tr>
                      <th scope="col" class="num">
                        Priority
                      </th>
                      <th scope="col">Interceptor</th>
                      <th scope="col">URL</th>
                      <th scope="col">Phases</th>
                      <th scope="col">Bundles</th>
                      <th scope="col">On failure</th>
                      <th scope="col">
                        <span class="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((i) => (
                      <tr key={i.id} class={i.enabled ? undefined : 'muted'}>
                        <td class="num">{i.priority}</td>
                        <th scope="row">
                          {i.name}
                          {!i.enabled && <Pill tone="neutral">disabled</Pill>}
                          {i.description && <div class="muted small clamp">{i.description}</div>}
                        </th>
                        <td>
                          <code class="small">{i.url}</code>
                        </td>
                        <td>{i.phases.join(', ')}</td>
                        <td>
                          {i.bundles.length ? (
                            i.bundles.map((b) => bundleName.get(b) ?? b.slice(0, 8)).join(', ')
                          ) : (
                            <span class="muted">every bundle</span>
                          )}
                        </td>
                        <td>
                          <Pill tone={i.failure_mode === 'closed' ? 'warn' : 'neutral'}>
                            fail {i.failure_mode} after {i.timeout_ms} ms
                          </Pill>
                        </td>
                        <td>
                          <Button small variant="ghost" onClick={() => setEditing(i)} aria-label={`Edit ${i.name}`}>
                            Edit
                          </Button>
                          <Button small variant="ghost" onClick={() => void remove(i)} aria-label={`Delete ${i.name}`}>
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
        <details>
          <summary>What an interceptor receives and answers</summary>
          <p class="small">
            A <code>POST</code> of JSON with <code>phase</code> (<code>before</code> or <code>after</code>), <code>tool</code>,{' '}
            <code>server</code>, <code>bundle_id</code>, <code>user_id</code>, <code>arguments</code> and, after the call,{' '}
            <code>result</code>; signed in <code>X-Toolgate-Signature: sha256=&lt;HMAC of "timestamp.body"&gt;</code> with{' '}
            <code>X-Toolgate-Timestamp</code>. It answers <code>{'{"action": "allow"}'}</code>,{' '}
            <code>{'{"action": "reject", "message": "…"}'}</code>, or <code>{'{"action": "rewrite", "arguments": {…}}'}</code> (before) /{' '}
            <code>{'{"action": "rewrite", "result": {…}}'}</code> (after).
          </p>
        </details>
      </Section>
      <Dialog
        title={editing === 'new' ? 'New interceptor' : `Edit ${editing?.name ?? ''}`}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
      >
        {editing !== null && (
          <InterceptorForm
            interceptor={editing === 'new' ? undefined : editing}
            bundles={(bundles.data?.items ?? []).map((b) => ({ value: b.id, label: b.name }))}
            onCancel={() => setEditing(null)}
            onDone={() => {
              setEditing(null);
              void interceptors.reload();
            }}
          />
        )}
      </Dialog>
      {confirmNode}
    </>
  );
}

/** The installation's redaction settings, saved as they are switched. */
function RedactionSettings() {
  const settings = useAsync(() => call(api.GET('/api/v1/guardrails')), []);
  const [error, setError] = useState<unknown>(null);
  const save = async (patch: { redact_secrets?: boolean; redact_pii?: boolean }) => {
    setError(null);
    try {
      await call(api.PATCH('/api/v1/guardrails', { body: patch }));
      await settings.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Loaded state={settings} feature="Redaction settings">
      {(s) => (
        <div class="stack">
          {error !== null && <ErrorNotice error={error} />}
          <Checkbox
            name="redact_secrets"
            label="Redact secrets"
            checked={s.redact_secrets}
            onValue={(v) => void save({ redact_secrets: v })}
            hint="Private keys, AWS keys, GitHub, GitLab, Slack, Stripe, Google, OpenAI and Anthropic keys, JWTs, Toolgate keys. On by default."
          />
          <Checkbox
            name="redact_pii"
            label="Redact personal data"
            checked={s.redact_pii}
            onValue={(v) => void save({ redact_pii: v })}
            hint="Emails, card numbers (Luhn-checked), IBANs, international phone numbers. Off by default; costs a scan of every string."
          />
          <p class="muted small">A bundle may override these on its page.</p>
        </div>
      )}
    </Loaded>
  );
}

/** Creates or changes an interceptor. The secret is write-only: left empty on edit, it is kept. */
function InterceptorForm(props: {
  interceptor?: Interceptor;
  bundles: { value: string; label: string }[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const i = props.interceptor;
  const [name, setName] = useState(i?.name ?? '');
  const [description, setDescription] = useState(i?.description ?? '');
  const [url, setUrl] = useState(i?.url ?? 'https://');
  const [secret, setSecret] = useState('');
  const [phases, setPhases] = useState<Phase[]>([...(i?.phases ?? ['before'])]);
  const [bundles, setBundles] = useState<string[]>([...(i?.bundles ?? [])]);
  const [timeout, setTimeoutMs] = useState(String(i?.timeout_ms ?? 5000));
  const [failure, setFailure] = useState<FailureMode>(i?.failure_mode ?? 'closed');
  const [priority, setPriority] = useState(String(i?.priority ?? 1000));
  const [enabled, setEnabled] = useState(i?.enabled ?? true);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors(NO_ERRORS);
    setBusy(true);
    const common = {
      name: name.trim(),
      description: description.trim() || null,
      url: url.trim(),
      phases,
      bundles,
      timeout_ms: Number(timeout),
      failure_mode: failure,
      priority: Number(priority),
      enabled,
    };
    try {
      if (i) {
        await call(
          api.PATCH('/api/v1/interceptors/{interceptor_id}', {
            params: { path: { interceptor_id: i.id } },
            body: { ...common, ...(secret ? { secret } : {}) },
          }),
        );
      } else await call(api.POST('/api/v1/interceptors', { body: { ...common, secret } }));
      props.onDone();
    } catch (err) {
      setErrors(formErrors(err, ['name', 'description', 'url', 'secret', 'phases', 'bundles', 'timeout_ms', 'failure_mode', 'priority']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack">
      <TextField label="Name" name="name" value={name} onValue={setName} required maxLength={100} error={errors.fields.name} />
      <TextArea
        label="Description"
        name="description"
        rows={2}
        value={description}
        onValue={setDescription}
        error={errors.fields.description}
      />
      <TextField
        label="URL"
        name="url"
        type="url"
        value={url}
        onValue={setUrl}
        required
        wide
        error={errors.fields.url}
        hint="Called under the outbound-address policy: a private or loopback address must be allow-listed in the general settings."
      />
      <TextField
        label={i ? 'New secret' : 'Secret'}
        name="secret"
        type="password"
        autocomplete="new-password"
        value={secret}
        onValue={setSecret}
        required={!i}
        maxLength={256}
        error={errors.fields.secret}
        hint={
          i
            ? 'Leave empty to keep the current secret. Never shown again.'
            : 'The HMAC key requests are signed with (16 characters or more). Never shown again.'
        }
      />
      <CheckGroup
        legend="Called"
        name="phases"
        value={phases}
        onValue={setPhases}
        error={errors.fields.phases}
        options={[
          { value: 'before', label: 'Before the call', hint: 'Sees the arguments; may reject the call or rewrite the arguments.' },
          { value: 'after', label: 'After the call', hint: 'Sees the arguments and the result; may reject or rewrite the result.' },
        ]}
      />
      <CheckGroup
        legend="Bundles"
        name="bundles"
        value={bundles}
        onValue={setBundles}
        error={errors.fields.bundles}
        options={props.bundles.map((b) => ({ value: b.value, label: b.label }))}
      />
      <p class="hint small muted">No bundle checked: every bundle's calls.</p>
      <TextField
        label="Timeout (ms)"
        name="timeout_ms"
        type="number"
        min={100}
        max={30000}
        value={timeout}
        onValue={setTimeoutMs}
        error={errors.fields.timeout_ms}
      />
      <SelectField
        label="When it fails (no answer in time, an error, an invalid answer)"
        name="failure_mode"
        value={failure}
        onValue={setFailure}
        options={[
          { value: 'closed', label: 'Refuse the call (fail closed)' },
          { value: 'open', label: 'Let the call through (fail open)' },
        ]}
      />
      <TextField
        label="Priority"
        name="priority"
        type="number"
        min={0}
        max={1000000}
        value={priority}
        onValue={setPriority}
        error={errors.fields.priority}
        hint="Interceptors of a phase are called in ascending priority."
      />
      <Checkbox label="Enabled" name="enabled" checked={enabled} onValue={setEnabled} />
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {i ? 'Save' : 'Create interceptor'}
        </Button>
      </div>
    </form>
  );
}

/** A bundle's own redaction settings (for the bundle's page): each follows the installation, or is on or off. */
export function BundleGuardrails(props: { bundleId: string }) {
  const state = useAsync(
    () => call(api.GET('/api/v1/bundles/{bundle_id}/guardrails', { params: { path: { bundle_id: props.bundleId } } })),
    [props.bundleId],
  );
  const [error, setError] = useState<unknown>(null);
  type Choice = 'inherit' | 'on' | 'off';
  const choice = (v: boolean | null): Choice => (v === null ? 'inherit' : v ? 'on' : 'off');
  const value = (c: Choice): boolean | null => (c === 'inherit' ? null : c === 'on');
  const options = [
    { value: 'inherit' as const, label: 'As the installation' },
    { value: 'on' as const, label: 'On' },
    { value: 'off' as const, label: 'Off' },
  ];
  const save = async (body: Schema<'BundleGuardrailsUpdate'>) => {
    setError(null);
    try {
      await call(api.PUT('/api/v1/bundles/{bundle_id}/guardrails', { params: { path: { bundle_id: props.bundleId } }, body }));
      await state.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Loaded state={state} feature="Guardrails">
      {(g) => {
        const onOff = (v: boolean) => (v ? 'on' : 'off');
        return (
          <div class="stack">
            {error !== null && <ErrorNotice error={error} />}
            <div class="toolbar">
              <SelectField
                label="Redact secrets"
                name="bundle_redact_secrets"
                value={choice(g.redact_secrets)}
                onValue={(c) => void save({ redact_secrets: value(c), redact_pii: g.redact_pii })}
                options={options}
              />
              <SelectField
                label="Redact personal data"
                name="bundle_redact_pii"
                value={choice(g.redact_pii)}
                onValue={(c) => void save({ redact_secrets: g.redact_secrets, redact_pii: value(c) })}
                options={options}
              />
            </div>
            <p class="muted small">
              Applied now: secrets {onOff(g.effective.redact_secrets)}, personal data {onOff(g.effective.redact_pii)}. Interceptors:{' '}
              {g.interceptors.length ? g.interceptors.map((i) => `${i.name} (${i.phases.join(', ')})`).join('; ') : 'none'}. Manage them
              under Access → Guardrails.
            </p>
          </div>
        );
      }}
    </Loaded>
  );
}
