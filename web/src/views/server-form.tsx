import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, intOrNull, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { Button, Checkbox, CheckGroup, FormError, SelectField, TextArea, TextField } from '../ui/kit.js';

type Server = Schema<'MCPServer'>;
type Transport = Schema<'MCPTransport'>;

const TRANSPORTS: { value: Transport; label: string }[] = [
  { value: 'stdio', label: 'stdio (a local process)' },
  { value: 'streamable_http', label: 'Streamable HTTP' },
  { value: 'sse', label: 'HTTP + SSE (legacy)' },
];

const FIELDS = [
  'name',
  'description',
  'transport',
  'command',
  'args',
  'env',
  'secret_env',
  'cwd',
  'url',
  'headers',
  'enabled',
  'call_timeout_ms',
  'health_check_interval_seconds',
  'tool_changes',
  'sandboxed',
  'auth_mode',
  'oauth',
] as const;

/** `KEY=value` (or `Name: value` for headers) lines as an object; a line without a separator is an error. */
export function parsePairs(text: string, separator: '=' | ':', label: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const at = line.indexOf(separator);
    if (at <= 0) throw new Error(`${label}, line ${i + 1}: write it as NAME${separator === '=' ? '=' : ': '}value`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  });
  return out;
}

function pairsText(obj: Record<string, string>, separator: '=' | ': '): string {
  return Object.entries(obj)
    .map(([k, v]) => `${k}${separator}${v}`)
    .join('\n');
}

/**
 * Registers or edits an upstream server. Secret values (secret environment variables, request
 * headers) are write-only: the form shows only their names, never their values; on edit a blank
 * secret box keeps what is stored, and removals are explicit.
 */
export function ServerForm(props: { server?: Server; onDone: (server: Server) => void; onCancel: () => void }) {
  const s = props.server;
  const [transport, setTransport] = useState<Transport>(s?.transport ?? 'stdio');
  const [name, setName] = useState(s?.name ?? '');
  const [description, setDescription] = useState(s?.description ?? '');
  const [command, setCommand] = useState(s?.command ?? '');
  const [args, setArgs] = useState((s?.args ?? []).join('\n'));
  const [env, setEnv] = useState(pairsText(s?.env ?? {}, '='));
  const [secretEnv, setSecretEnv] = useState('');
  const [removeSecrets, setRemoveSecrets] = useState<string[]>([]);
  const [cwd, setCwd] = useState(s?.cwd ?? '');
  const [url, setUrl] = useState(s?.url ?? '');
  const [headers, setHeaders] = useState('');
  const [removeHeaders, setRemoveHeaders] = useState<string[]>([]);
  const [enabled, setEnabled] = useState(true);
  // A value the server follows from the general settings shows as blank: blank means "follow it".
  const own = (field: 'call_timeout_ms' | 'health_check_interval_seconds') =>
    s && !(s.inherited as string[]).includes(field) ? String(s[field]) : '';
  const [timeout, setTimeoutMs] = useState(own('call_timeout_ms'));
  const [interval, setIntervalSecs] = useState(own('health_check_interval_seconds'));
  const [toolChanges, setToolChanges] = useState<'require_approval' | 'accept'>(s?.tool_changes ?? 'require_approval');
  const [sandboxed, setSandboxed] = useState(s?.sandboxed ?? false);
  const [authMode, setAuthMode] = useState<Schema<'ServerAuthMode'>>(s?.auth_mode ?? 'none');
  const [clientId, setClientId] = useState(s?.oauth?.client_id ?? '');
  const [clientSecret, setClientSecret] = useState('');
  // '' = the default (client_secret_basic with a secret, none without).
  const [authMethod, setAuthMethod] = useState<Schema<'TokenEndpointAuthMethod'> | ''>(s?.oauth?.token_endpoint_auth_method ?? '');
  const [scopes, setScopes] = useState((s?.oauth?.scopes ?? []).join(' '));
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const stdio = transport === 'stdio';
  // The OAuth client settings as the contract takes them: a blank client id means CIMD or DCR.
  const scopeList = () => [...new Set(scopes.split(/\s+/).filter(Boolean))];
  const oauthInput = (): Schema<'ServerOAuthSettingsInput'> => ({
    client_id: clientId.trim() || null,
    ...(clientSecret ? { client_secret: clientSecret } : {}),
    token_endpoint_auth_method: authMethod || null,
    scopes: scopeList(),
  });
  /** Whether the OAuth client settings differ from the stored ones (a new secret always does). */
  const oauthChanged = () =>
    !!clientSecret ||
    (clientId.trim() || null) !== (s?.oauth?.client_id ?? null) ||
    (authMethod || null) !== (s?.oauth?.token_endpoint_auth_method ?? null) ||
    scopeList().join(' ') !== (s?.oauth?.scopes ?? []).join(' ');

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors(NO_ERRORS);
    let envObj: Record<string, string>;
    let secretObj: Record<string, string>;
    let headerObj: Record<string, string>;
    try {
      envObj = parsePairs(env, '=', 'Environment');
      secretObj = parsePairs(secretEnv, '=', 'Secret environment');
      headerObj = parsePairs(headers, ':', 'Headers');
    } catch (err) {
      setErrors({ fields: {}, form: (err as Error).message });
      return;
    }
    const argList = args
      .split('\n')
      .map((a) => a.trim())
      .filter(Boolean);
    const timeoutN = intOrNull(timeout);
    const intervalN = intOrNull(interval);
    setBusy(true);
    try {
      let result: Server;
      if (!s) {
        const body: Schema<'MCPServerCreate'> = {
          name: name.trim(),
          transport,
          enabled,
          ...(description.trim() ? { description: description.trim() } : {}),
          ...(timeoutN !== null ? { call_timeout_ms: timeoutN } : {}),
          ...(intervalN !== null ? { health_check_interval_seconds: intervalN } : {}),
          tool_changes: toolChanges,
          ...(stdio
            ? {
                command: command.trim(),
                ...(argList.length ? { args: argList } : {}),
                ...(Object.keys(envObj).length ? { env: envObj } : {}),
                ...(Object.keys(secretObj).length ? { secret_env: secretObj } : {}),
                ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
                ...(sandboxed ? { sandboxed: true } : {}),
              }
            : {
                url: url.trim(),
                ...(Object.keys(headerObj).length ? { headers: headerObj } : {}),
                ...(authMode !== 'none' ? { auth_mode: authMode, oauth: oauthInput() } : {}),
              }),
        };
        result = await call(api.POST('/api/v1/servers', { body }));
      } else {
        // A merge patch: only what changed; removed variables and secrets are sent as null.
        const patch: Schema<'MCPServerUpdate'> = {};
        if (name.trim() !== s.name) patch.name = name.trim();
        if ((description.trim() || null) !== s.description) patch.description = description.trim() || null;
        if (transport !== s.transport) patch.transport = transport;
        // Blank: follow the general setting again (null); a number: the server's own value.
        if (String(timeoutN ?? '') !== own('call_timeout_ms')) patch.call_timeout_ms = timeoutN;
        if (String(intervalN ?? '') !== own('health_check_interval_seconds')) patch.health_check_interval_seconds = intervalN;
        if (toolChanges !== s.tool_changes) patch.tool_changes = toolChanges;
        if (stdio) {
          if (command.trim() !== (s.command ?? '')) patch.command = command.trim() || null;
          if (JSON.stringify(argList) !== JSON.stringify(s.args)) patch.args = argList;
          const envPatch: Record<string, string | null> = {};
          for (const k of Object.keys(s.env)) if (!(k in envObj)) envPatch[k] = null;
          for (const [k, v] of Object.entries(envObj)) if (s.env[k] !== v) envPatch[k] = v;
          if (Object.keys(envPatch).length) patch.env = envPatch;
          const secretPatch: Record<string, string | null> = { ...secretObj };
          for (const k of removeSecrets) if (!(k in secretObj)) secretPatch[k] = null;
          if (Object.keys(secretPatch).length) patch.secret_env = secretPatch;
          if ((cwd.trim() || null) !== s.cwd) patch.cwd = cwd.trim() || null;
          if (sandboxed !== s.sandboxed) patch.sandboxed = sandboxed;
          if (s.transport !== 'stdio') patch.url = null;
        } else {
          if (url.trim() !== (s.url ?? '')) patch.url = url.trim() || null;
          const headerPatch: Record<string, string | null> = { ...headerObj };
          for (const k of removeHeaders) if (!(k in headerObj)) headerPatch[k] = null;
          if (Object.keys(headerPatch).length) patch.headers = headerPatch;
          if (s.transport === 'stdio') patch.command = null;
          if (authMode !== s.auth_mode) patch.auth_mode = authMode;
          if (authMode !== 'none' && oauthChanged()) patch.oauth = oauthInput();
        }
        if (!Object.keys(patch).length) {
          props.onCancel();
          return;
        }
        result = await call(api.PATCH('/api/v1/servers/{server_id}', { params: { path: { server_id: s.id } }, body: patch }));
      }
      setSecretEnv('');
      setHeaders('');
      setClientSecret('');
      props.onDone(result);
    } catch (err) {
      setErrors(formErrors(err, FIELDS));
    } finally {
      setBusy(false);
    }
  };

  const f = errors.fields;
  return (
    <form onSubmit={submit} class="form-grid" autocomplete="off">
      <TextField
        label="Name"
        name="name"
        value={name}
        onValue={setName}
        required
        error={f.name}
        hint="Letters, digits, . _ -; the tool prefix in the gateway."
      />
      <SelectField label="Transport" name="transport" value={transport} onValue={setTransport} options={TRANSPORTS} error={f.transport} />
      <TextArea label="Description" name="description" rows={2} value={description} onValue={setDescription} error={f.description} />
      {stdio ? (
        <>
          <TextField
            label="Command"
            name="command"
            value={command}
            onValue={setCommand}
            required
            error={f.command}
            hint="The executable, e.g. npx or node."
            wide
          />
          <TextArea
            label="Arguments"
            name="args"
            rows={3}
            mono
            value={args}
            onValue={setArgs}
            error={f.args}
            hint="One argument per line."
          />
          <TextArea
            label="Environment"
            name="env"
            rows={3}
            mono
            value={env}
            onValue={setEnv}
            error={f.env}
            hint="KEY=value per line. Not secret: shown to admins."
          />
          <TextArea
            label={s ? 'Set secret environment variables' : 'Secret environment'}
            name="secret_env"
            rows={3}
            mono
            value={secretEnv}
            onValue={setSecretEnv}
            error={f.secret_env}
            hint="KEY=value per line. Stored encrypted and never shown again; only the names are listed."
          />
          {s && s.secret_env_keys.length > 0 && (
            <CheckGroup
              legend="Stored secret variables (check to remove)"
              name="remove_secret_env"
              options={s.secret_env_keys.map((k) => ({ value: k, label: <code>{k}</code> }))}
              value={removeSecrets}
              onValue={setRemoveSecrets}
            />
          )}
          <TextField label="Working directory" name="cwd" value={cwd} onValue={setCwd} error={f.cwd} />
        </>
      ) : (
        <>
          <TextField
            label="URL"
            name="url"
            type="url"
            value={url}
            onValue={setUrl}
            required
            error={f.url}
            wide
            hint={transport === 'sse' ? 'The legacy SSE endpoint, e.g. https://host/sse.' : 'The MCP endpoint, e.g. https://host/mcp.'}
          />
          <TextArea
            label={s ? 'Set request headers' : 'Request headers'}
            name="headers"
            rows={3}
            mono
            value={headers}
            onValue={setHeaders}
            error={f.headers}
            hint="Name: value per line (e.g. Authorization: Bearer …). Stored encrypted; only the names are shown again."
          />
          {s && s.header_names.length > 0 && (
            <CheckGroup
              legend="Stored headers (check to remove)"
              name="remove_headers"
              options={s.header_names.map((k) => ({ value: k, label: <code>{k}</code> }))}
              value={removeHeaders}
              onValue={setRemoveHeaders}
            />
          )}
          <SelectField
            label="Authorization"
            name="auth_mode"
            value={authMode}
            onValue={setAuthMode}
            error={f.auth_mode}
            options={[
              { value: 'none', label: 'None or request headers' },
              { value: 'oauth_per_user', label: 'OAuth: each person connects (their calls carry their own token)' },
              { value: 'oauth_shared', label: 'OAuth: one shared credential (client credentials, or an admin connects)' },
              { value: 'oauth_token_exchange', label: "OAuth token exchange: each caller's Toolgate identity (RFC 8693)" },
            ]}
            hint="People connect OAuth servers under Connections."
          />
          {authMode !== 'none' && (
            <>
              <TextField
                label="Pre-registered client id"
                name="client_id"
                value={clientId}
                onValue={setClientId}
                error={f.oauth}
                hint="Blank: Toolgate registers itself (client metadata document, or dynamic registration)."
              />
              <SelectField
                label="Client authentication"
                name="token_endpoint_auth_method"
                value={authMethod}
                onValue={setAuthMethod}
                options={[
                  { value: '', label: 'Default (client_secret_basic with a secret, none without)' },
                  { value: 'client_secret_basic', label: 'client_secret_basic (HTTP Basic)' },
                  { value: 'client_secret_post', label: 'client_secret_post (in the form body)' },
                  { value: 'private_key_jwt', label: 'private_key_jwt (a signed assertion, RFC 7523)' },
                  { value: 'none', label: 'none (a public client)' },
                ]}
                hint="How the pre-registered client proves itself at the token endpoint."
              />
              {authMethod === 'private_key_jwt' ? (
                <TextArea
                  label={s?.oauth?.has_client_secret ? 'Replace private key (PEM)' : 'Private key (PEM)'}
                  name="client_secret"
                  rows={6}
                  mono
                  value={clientSecret}
                  onValue={setClientSecret}
                  placeholder="-----BEGIN PRIVATE KEY-----"
                  hint="PKCS#8 (EC, RSA or Ed25519); it signs the client assertions. Stored encrypted; never shown again."
                />
              ) : (
                <TextField
                  label={s?.oauth?.has_client_secret ? 'Replace client secret' : 'Client secret'}
                  name="client_secret"
                  type="password"
                  value={clientSecret}
                  onValue={setClientSecret}
                  hint="Stored encrypted; never shown again."
                />
              )}
              <TextField
                label="Scopes"
                name="scopes"
                value={scopes}
                onValue={setScopes}
                hint="Separated by spaces. Blank: those the server asks for, else all it supports."
              />
            </>
          )}
        </>
      )}
      <TextField
        label="Call timeout (ms)"
        name="call_timeout_ms"
        type="number"
        min={100}
        max={600000}
        value={timeout}
        onValue={setTimeoutMs}
        error={f.call_timeout_ms}
        hint={
          s && (s.inherited as string[]).includes('call_timeout_ms')
            ? `Blank: the general setting (now ${s.call_timeout_ms} ms).`
            : 'Blank: the general setting.'
        }
      />
      <TextField
        label="Health check interval (s)"
        name="health_check_interval_seconds"
        type="number"
        min={10}
        max={86400}
        value={interval}
        onValue={setIntervalSecs}
        error={f.health_check_interval_seconds}
        hint={
          s && (s.inherited as string[]).includes('health_check_interval_seconds')
            ? `Blank: the general setting (now ${s.health_check_interval_seconds} s).`
            : 'Blank: the general setting.'
        }
      />
      <SelectField
        label="When a tool's definition changes upstream"
        name="tool_changes"
        value={toolChanges}
        onValue={setToolChanges}
        error={f.tool_changes}
        options={[
          { value: 'require_approval', label: 'Withhold the tool until an admin approves (recommended)' },
          { value: 'accept', label: 'Serve the new definition at once' },
        ]}
        hint="A changed description, input schema or annotations of an approved tool can be a tool-poisoning attempt."
      />
      {stdio && (
        <Checkbox
          name="sandboxed"
          label="Run in Toolgate's sandbox"
          checked={sandboxed}
          onValue={setSandboxed}
          error={f.sandboxed}
          hint="Its own user, a minimal environment, no Toolgate data, limits, and no network until you approve hosts on the server page. Leave off for a program that needs this host's files, tools or network."
        />
      )}
      {!s && <Checkbox name="enabled" label="Connect right away" checked={enabled} onValue={setEnabled} error={f.enabled} />}
      <div class="wide">
        <FormError message={errors.form} />
      </div>
      <div class="form-actions wide">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {s ? 'Save changes' : 'Add server'}
        </Button>
      </div>
    </form>
  );
}
