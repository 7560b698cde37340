import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { Button, FormError, SelectField, TextArea, TextField } from '../ui/kit.js';

type Source = 'url' | 'upload';
type Auth = 'none' | 'header' | 'query' | 'basic';

const SOURCES: { value: Source; label: string }[] = [
  { value: 'url', label: 'Fetch it from a URL' },
  { value: 'upload', label: 'Paste or upload it' },
];
const AUTHS: { value: Auth; label: string }[] = [
  { value: 'none', label: 'None' },
  { value: 'header', label: 'Header (API key, bearer token)' },
  { value: 'query', label: 'Query parameter' },
  { value: 'basic', label: 'HTTP Basic' },
];

/** Registers a REST API from its OpenAPI 3.0/3.1 document: one tool per operation. */
export function OpenApiServerForm(props: { onCancel: () => void; onDone: (server: Schema<'MCPServer'>) => void }) {
  const [name, setName] = useState('');
  const [source, setSource] = useState<Source>('url');
  const [documentUrl, setDocumentUrl] = useState('');
  const [document, setDocument] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [auth, setAuth] = useState<Auth>('none');
  const [authName, setAuthName] = useState('');
  const [authValue, setAuthValue] = useState('');
  const [username, setUsername] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const readFile = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    if (file) setDocument(await file.text());
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const credential =
        auth === 'basic'
          ? { type: 'basic' as const, username, password: authValue }
          : auth === 'none'
            ? undefined
            : { type: auth, name: authName, value: authValue };
      const body: Schema<'OpenApiServerCreate'> = {
        name,
        ...(source === 'url' ? { document_url: documentUrl } : { document }),
        ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
        ...(credential ? { credential } : {}),
      } as Schema<'OpenApiServerCreate'>;
      props.onDone(await call(api.POST('/api/v1/servers/openapi', { body })));
    } catch (err) {
      setErrors(formErrors(err, ['name', 'document', 'document_url', 'base_url', 'credential']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="form-grid">
      <TextField label="Name" name="name" required value={name} onValue={setName} error={errors.fields.name} />
      <SelectField label="OpenAPI document (3.0 or 3.1)" name="source" value={source} onValue={setSource} options={SOURCES} />
      {source === 'url' ? (
        <TextField
          label="Document URL"
          name="document_url"
          type="url"
          required
          wide
          value={documentUrl}
          onValue={setDocumentUrl}
          error={errors.fields.document_url}
          hint="Fetched once, under the outbound-address policy."
        />
      ) : (
        <>
          <div class="wide">
            <label>
              Upload a file <input type="file" accept=".json,.yaml,.yml,application/json,application/yaml" onChange={readFile} />
            </label>
          </div>
          <TextArea
            label="Document"
            name="document"
            rows={8}
            mono
            required
            value={document}
            onValue={setDocument}
            error={errors.fields.document}
          />
        </>
      )}
      <TextField
        label="Base URL"
        name="base_url"
        type="url"
        wide
        value={baseUrl}
        onValue={setBaseUrl}
        error={errors.fields.base_url}
        hint="Blank: the document's first servers URL."
      />
      <SelectField label="Credential" name="auth" value={auth} onValue={setAuth} options={AUTHS} error={errors.fields.credential} />
      {(auth === 'header' || auth === 'query') && (
        <TextField
          label={auth === 'header' ? 'Header name' : 'Query parameter name'}
          name="auth_name"
          required
          value={authName}
          onValue={setAuthName}
        />
      )}
      {auth === 'basic' && <TextField label="Username" name="username" required value={username} onValue={setUsername} />}
      {auth !== 'none' && (
        <TextField
          label={auth === 'basic' ? 'Password' : 'Value'}
          name="auth_value"
          type="password"
          autocomplete="new-password"
          required
          value={authValue}
          onValue={setAuthValue}
          hint="Stored encrypted, never shown again."
        />
      )}
      <div class="wide">
        <FormError message={errors.form} />
      </div>
      <div class="form-actions wide">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Register
        </Button>
      </div>
    </form>
  );
}
