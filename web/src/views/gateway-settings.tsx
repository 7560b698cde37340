import { counted } from '../lib/text.js';
import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import { Button, CheckGroup, CopyButton, FormError, Loaded, PageHeader, Section, TextField, Time } from '../ui/kit.js';

/** How `/mcp/gateway` serves me: direct or search/execute, which bundles, the search limit. */
export function GatewaySettingsView() {
  const settings = useAsync(() => call(api.GET('/api/v1/users/me/gateway-settings')), []);
  const bundles = useAsync(() => call(api.GET('/api/v1/bundles', { params: { query: { page_size: 100 } } })), []);
  // The bundles this user may use, as the server says (`access`): admins every bundle, members their
  // own and those shared with them or their teams for use (not the view-only ones).
  const usable = (bundles.data?.items ?? []).filter((b) => b.access === 'manage' || b.access === 'use');
  const url = `${location.origin}/mcp/gateway`;
  const snippet = JSON.stringify(
    { mcpServers: { toolgate: { type: 'http', url, headers: { Authorization: 'Bearer <your API key with the mcp scope>' } } } },
    null,
    2,
  );

  return (
    <>
      <PageHeader title="My gateway" intro="Your personal MCP endpoint: every tool you may use, from the bundles you choose." />
      <Section title="Endpoint">
        <div class="copy-row">
          <label class="sr-only" for="gateway-url">
            Gateway endpoint URL
          </label>
          <input id="gateway-url" class="mono" readOnly value={url} />
          <CopyButton text={url} label="Copy URL" />
        </div>
        <p class="muted small">
          Authenticate with one of your <a href="/keys">API keys</a> that has the <code>mcp</code> scope, as a Bearer token.
        </p>
        <div class="snippet">
          <div class="snippet-head">
            <span>mcp.json</span>
            <CopyButton small text={snippet} />
          </div>
          <pre>
            <code>{snippet}</code>
          </pre>
        </div>
      </Section>
      <Section title="Settings">
        <Loaded state={settings} feature="Gateway settings">
          {(s) => <SettingsForm key={s.updated_at ?? 'defaults'} settings={s} bundles={usable} onSaved={settings.set} />}
        </Loaded>
      </Section>
    </>
  );
}

function SettingsForm(props: {
  settings: Schema<'GatewaySettings'>;
  bundles: Schema<'MCPBundleSummary'>[];
  onSaved: (s: Schema<'GatewaySettings'>) => void;
}) {
  const s = props.settings;
  const [mode, setMode] = useState<Schema<'GatewayMode'>>(s.mode);
  const [bundleIds, setBundleIds] = useState<string[]>(s.bundle_ids);
  const [limit, setLimit] = useState(String(s.search_result_limit));
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaved(false);
    setErrors(NO_ERRORS);
    try {
      props.onSaved(
        await call(
          api.PUT('/api/v1/users/me/gateway-settings', { body: { mode, bundle_ids: bundleIds, search_result_limit: Number(limit) } }),
        ),
      );
      setSaved(true);
    } catch (err) {
      setErrors(formErrors(err, ['mode', 'bundle_ids', 'search_result_limit']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack">
      <fieldset class={`group${errors.fields.mode ? ' invalid' : ''}`}>
        <legend>Mode</legend>
        <label class="radio">
          <input type="radio" name="mode" value="direct" checked={mode === 'direct'} onChange={() => setMode('direct')} />
          <span>
            <strong>Direct</strong>: every tool of the selected bundles is listed.
          </span>
        </label>
        <label class="radio">
          <input
            type="radio"
            name="mode"
            value="search_execute"
            checked={mode === 'search_execute'}
            onChange={() => setMode('search_execute')}
          />
          <span>
            <strong>Search and execute</strong>: two tools; the model searches for what it needs, then calls it. Best with many tools.
          </span>
        </label>
        {errors.fields.mode && <small class="field-error">{errors.fields.mode}</small>}
      </fieldset>
      {props.bundles.length > 0 ? (
        <CheckGroup
          legend="Bundles (none checked: every bundle you may use)"
          name="bundle_ids"
          value={bundleIds}
          onValue={setBundleIds}
          error={errors.fields.bundle_ids}
          options={props.bundles.map((b) => ({ value: b.id, label: `${b.name} (${counted(b.tool_count, 'tool')})` }))}
        />
      ) : (
        <p class="muted">No bundles you may use yet: the gateway serves nothing until one exists.</p>
      )}
      {mode === 'search_execute' && (
        <TextField
          label="Search results"
          name="search_result_limit"
          type="number"
          min={1}
          max={50}
          value={limit}
          onValue={setLimit}
          error={errors.fields.search_result_limit}
          hint="The most tools one search returns."
        />
      )}
      <FormError message={errors.form} />
      {saved && (
        <p class="notice ok" role="status">
          Saved. Open gateway sessions see the change at their next tools/list.
        </p>
      )}
      <p class="muted small">
        Last changed: <Time iso={s.updated_at} />
      </p>
      <div class="form-actions">
        <Button type="submit" variant="primary" busy={busy}>
          Save
        </Button>
      </div>
    </form>
  );
}
