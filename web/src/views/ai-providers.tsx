import { useState } from 'preact/hooks';
import { api, call, errorMessage, type Schema } from '../lib/api.js';
import { formErrors, intOrNull, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import {
  Button,
  Checkbox,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  ms,
  PageHeader,
  Pill,
  SelectField,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';

type Provider = Schema<'AIProvider'>;
type ProviderType = Schema<'AIProviderType'>;
type ProviderName = Schema<'AIProviderName'>;

const NAMES: { value: ProviderName; label: string }[] = [
  { value: 'openai', label: 'OpenAI' },
  { value: 'anthropic', label: 'Anthropic (LLM only)' },
  { value: 'openai_compatible', label: 'OpenAI-compatible API' },
  { value: 'ollama', label: 'Ollama' },
  { value: 'vllm', label: 'vLLM' },
  { value: 'lmstudio', label: 'LM Studio' },
];
const NEEDS_ENDPOINT = new Set<ProviderName>(['openai_compatible', 'ollama', 'vllm', 'lmstudio']);

/** LLM and embedding providers: add, test the connection, activate, edit, delete. API keys are write-only. */
export function AiProvidersView() {
  const providers = useAsync(() => call(api.GET('/api/v1/settings/providers')), []);
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [results, setResults] = useState<Record<string, Schema<'AIProviderTestResult'> | string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();

  const test = async (p: Provider) => {
    setBusy(`test-${p.id}`);
    try {
      const r = await call(api.POST('/api/v1/settings/providers/{provider_id}/test', { params: { path: { provider_id: p.id } } }));
      setResults({ ...results, [p.id]: r });
      await providers.reload();
    } catch (err) {
      setResults({ ...results, [p.id]: errorMessage(err) });
    } finally {
      setBusy(null);
    }
  };
  const activate = async (p: Provider) => {
    setBusy(`activate-${p.id}`);
    setError(null);
    try {
      await call(api.POST('/api/v1/settings/providers/{provider_id}/activate', { params: { path: { provider_id: p.id } } }));
      await providers.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  const remove = async (p: Provider) => {
    const ok = await confirm({
      title: `Delete ${p.display_name}?`,
      body: (
        <p>
          The configuration and its stored API key are deleted.
          {p.is_active && ' It is the active provider of its type: none will be active until you activate another.'}
        </p>
      ),
      confirm: 'Delete provider',
    });
    if (!ok) return;
    setError(null);
    try {
      await call(api.DELETE('/api/v1/settings/providers/{provider_id}', { params: { path: { provider_id: p.id } } }));
      await providers.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <PageHeader
        title="AI providers"
        intro="Language models for server and skill generation, embedding models for semantic tool search. One provider of each type is active."
        actions={
          <Button variant="primary" onClick={() => setEditing('new')}>
            Add provider
          </Button>
        }
      />
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={providers} feature="AI providers">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No AI provider configured.</Empty>
          ) : (
            <div class="cards">
              {data.items.map((p) => {
                const r = results[p.id];
                return (
                  <article class="card provider" key={p.id} aria-labelledby={`p-${p.id}`}>
                    <div class="card-head">
                      <h2 id={`p-${p.id}`}>{p.display_name}</h2>
                      <div>
                        <Pill tone="info">{p.provider_type}</Pill> {p.is_active && <Pill tone="ok">active</Pill>}
                      </div>
                    </div>
                    <dl class="facts">
                      <dt>Provider</dt>
                      <dd>{p.provider}</dd>
                      <dt>Model</dt>
                      <dd>
                        <code>{p.model}</code>
                      </dd>
                      <dt>Endpoint</dt>
                      <dd class="wrap">{p.endpoint ?? 'provider default'}</dd>
                      <dt>API key</dt>
                      <dd>{p.has_api_key ? <code>{p.api_key_masked}</code> : 'none'}</dd>
                      <dt>Connection</dt>
                      <dd>
                        {p.connection_verified ? (
                          <>
                            <Pill tone="ok">verified</Pill> <Time iso={p.connection_verified_at} relative />
                          </>
                        ) : (
                          <Pill tone="neutral">not verified</Pill>
                        )}
                      </dd>
                    </dl>
                    {p.needs_reconfiguration && <p class="notice warn">The stored key can no longer be decrypted: set a new API key.</p>}
                    {r &&
                      (typeof r === 'string' ? (
                        <p class="notice error" role="alert">
                          {r}
                        </p>
                      ) : (
                        <p class={`notice ${r.ok ? 'ok' : 'error'}`} role="status">
                          {r.ok ? `Connection works (${ms(r.latency_ms)}).` : `Connection failed: ${r.error}`}
                        </p>
                      ))}
                    <div class="row-actions">
                      <Button small busy={busy === `test-${p.id}`} onClick={() => test(p)}>
                        Test connection
                      </Button>
                      {!p.is_active && (
                        <Button small busy={busy === `activate-${p.id}`} onClick={() => activate(p)}>
                          Activate
                        </Button>
                      )}
                      <Button small onClick={() => setEditing(p)}>
                        Edit
                      </Button>
                      <Button small variant="danger" onClick={() => remove(p)}>
                        Delete
                      </Button>
                    </div>
                  </article>
                );
              })}
            </div>
          )
        }
      </Loaded>
      <Dialog
        title={editing === 'new' ? 'Add an AI provider' : editing ? `Edit ${editing.display_name}` : ''}
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
    </>
  );
}

function ProviderForm(props: { provider?: Provider; onDone: () => void; onCancel: () => void }) {
  const p = props.provider;
  const cfg = (p?.config ?? {}) as Record<string, unknown>;
  const [type, setType] = useState<ProviderType>(p?.provider_type ?? 'llm');
  const [name, setName] = useState<ProviderName>(p?.provider ?? 'openai');
  const [model, setModel] = useState(p?.model ?? '');
  const [displayName, setDisplayName] = useState(p?.display_name ?? '');
  const [apiKey, setApiKey] = useState('');
  const [removeKey, setRemoveKey] = useState(false);
  const [endpoint, setEndpoint] = useState(p?.endpoint ?? '');
  const [temperature, setTemperature] = useState(cfg.temperature === undefined ? '' : String(cfg.temperature));
  const [maxTokens, setMaxTokens] = useState(cfg.max_tokens === undefined ? '' : String(cfg.max_tokens));
  const [dimensions, setDimensions] = useState(cfg.dimensions === undefined ? '' : String(cfg.dimensions));
  const [timeoutMs, setTimeoutMs] = useState(cfg.timeout_ms === undefined ? '' : String(cfg.timeout_ms));
  const [active, setActive] = useState(false);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    const config: Schema<'AIProviderConfig'> = { ...(cfg as Schema<'AIProviderConfig'>) };
    const setNum = (k: 'temperature' | 'max_tokens' | 'dimensions' | 'timeout_ms', v: string) => {
      const n = intOrNull(v);
      if (n === null) delete config[k];
      else config[k] = n;
    };
    setNum('temperature', temperature);
    setNum('max_tokens', maxTokens);
    setNum('dimensions', dimensions);
    setNum('timeout_ms', timeoutMs);
    try {
      if (!p) {
        await call(
          api.POST('/api/v1/settings/providers', {
            body: {
              provider_type: type,
              provider: name,
              model: model.trim(),
              ...(displayName.trim() ? { display_name: displayName.trim() } : {}),
              ...(apiKey ? { api_key: apiKey } : {}),
              ...(endpoint.trim() ? { endpoint: endpoint.trim() } : {}),
              ...(Object.keys(config).length ? { config } : {}),
              is_active: active,
            },
          }),
        );
      } else {
        await call(
          api.PATCH('/api/v1/settings/providers/{provider_id}', {
            params: { path: { provider_id: p.id } },
            body: {
              model: model.trim(),
              ...(displayName.trim() ? { display_name: displayName.trim() } : {}),
              endpoint: endpoint.trim() || null,
              config,
              ...(apiKey ? { api_key: apiKey } : removeKey ? { api_key: null } : {}),
            },
          }),
        );
      }
      setApiKey('');
      props.onDone();
    } catch (err) {
      setErrors(
        formErrors(err, [
          'provider_type',
          'provider',
          'model',
          'display_name',
          'api_key',
          'endpoint',
          'config',
          'config.temperature',
          'config.max_tokens',
          'config.dimensions',
          'config.timeout_ms',
          'is_active',
        ]),
      );
    } finally {
      setBusy(false);
    }
  };

  const f = errors.fields;
  return (
    <form onSubmit={submit} class="form-grid" autocomplete="off">
      {!p && (
        <>
          <SelectField
            label="Used for"
            name="provider_type"
            value={type}
            onValue={setType}
            error={f.provider_type}
            options={[
              { value: 'llm', label: 'Generation (LLM)' },
              { value: 'embedding', label: 'Semantic search (embeddings)' },
            ]}
          />
          <SelectField label="Provider" name="provider" value={name} onValue={setName} options={NAMES} error={f.provider} />
        </>
      )}
      <TextField
        label="Model"
        name="model"
        value={model}
        onValue={setModel}
        required
        error={f.model}
        placeholder={type === 'llm' ? 'gpt-4.1-mini' : 'text-embedding-3-small'}
      />
      <TextField
        label="Label"
        name="display_name"
        value={displayName}
        onValue={setDisplayName}
        error={f.display_name}
        hint="Blank: provider and model."
      />
      <TextField
        label="Endpoint"
        name="endpoint"
        type="url"
        value={endpoint}
        onValue={setEndpoint}
        required={!p && NEEDS_ENDPOINT.has(name)}
        error={f.endpoint}
        hint={
          NEEDS_ENDPOINT.has(p?.provider ?? name) ? 'Base URL of the API, e.g. http://localhost:11434/v1.' : 'Blank: the provider default.'
        }
        wide
      />
      <TextField
        label="API key"
        name="api_key"
        type="password"
        autocomplete="new-password"
        value={apiKey}
        onValue={setApiKey}
        error={f.api_key}
        hint={p?.has_api_key ? `Stored: ${p.api_key_masked}. Leave blank to keep it.` : 'Stored encrypted; never shown again.'}
      />
      {p?.has_api_key && <Checkbox name="remove_api_key" label="Remove the stored key" checked={removeKey} onValue={setRemoveKey} />}
      {type === 'llm' ? (
        <>
          <TextField
            label="Temperature"
            name="config.temperature"
            type="number"
            step="0.1"
            min={0}
            max={2}
            value={temperature}
            onValue={setTemperature}
            error={f['config.temperature']}
          />
          <TextField
            label="Max tokens"
            name="config.max_tokens"
            type="number"
            min={1}
            value={maxTokens}
            onValue={setMaxTokens}
            error={f['config.max_tokens']}
          />
        </>
      ) : (
        <TextField
          label="Dimensions"
          name="config.dimensions"
          type="number"
          min={1}
          value={dimensions}
          onValue={setDimensions}
          error={f['config.dimensions']}
        />
      )}
      <TextField
        label="Request timeout (ms)"
        name="config.timeout_ms"
        type="number"
        min={100}
        max={600000}
        value={timeoutMs}
        onValue={setTimeoutMs}
        error={f['config.timeout_ms']}
      />
      {!p && (
        <Checkbox
          name="is_active"
          label="Make it the active provider of its type"
          checked={active}
          onValue={setActive}
          hint="The first provider of a type is always activated."
        />
      )}
      <div class="wide">
        <FormError message={errors.form} />
      </div>
      <div class="form-actions wide">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {p ? 'Save' : 'Add provider'}
        </Button>
      </div>
    </form>
  );
}
