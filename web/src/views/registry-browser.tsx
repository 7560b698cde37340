import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync, useDebounced } from '../lib/hooks.js';
import { Button, Dialog, Empty, FormError, Loaded, Pill, Section, TextField } from '../ui/kit.js';

type Option = Schema<'RegistryImportOption'>;

/** Browses the MCP registry of the general settings and adds one of its servers. */
export function RegistryBrowser() {
  // The registry is fetched only when asked: opening the page reaches no outside service.
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [picked, setPicked] = useState<{ server: string; version: string; option: Option } | null>(null);
  return (
    <Section title="Add a server from an MCP registry">
      <p>
        Browses the registry of the general settings (the official MCP registry unless <code>registry_url</code> names another). Remotes
        become HTTP servers; npm and PyPI packages run with <code>npx</code> and <code>uvx</code>.
      </p>
      {!open ? (
        <Button onClick={() => setOpen(true)}>Browse the registry</Button>
      ) : (
        <RegistryList
          search={search}
          cursor={cursor}
          onSearch={(v) => {
            setSearch(v);
            setCursor(undefined);
          }}
          onCursor={setCursor}
          onPick={setPicked}
        />
      )}
      <Dialog title={picked ? `Add ${picked.server}` : 'Add'} open={picked !== null} onClose={() => setPicked(null)} wide>
        {picked && <ImportForm {...picked} onCancel={() => setPicked(null)} />}
      </Dialog>
    </Section>
  );
}

function RegistryList(props: {
  search: string;
  cursor: string | undefined;
  onSearch: (v: string) => void;
  onCursor: (c: string | undefined) => void;
  onPick: (p: { server: string; version: string; option: Option }) => void;
}) {
  const { search, cursor, onSearch: setSearch, onCursor: setCursor, onPick: setPicked } = props;
  const q = useDebounced(search);
  const list = useAsync(
    () => call(api.GET('/api/v1/registry/servers', { params: { query: { ...(q ? { search: q } : {}), ...(cursor ? { cursor } : {}) } } })),
    [q, cursor],
  );
  return (
    <>
      <div class="toolbar">
        <TextField label="Search" name="registry_search" value={search} onValue={setSearch} />
      </div>
      <Loaded state={list} feature="Registry browsing">
        {(page) =>
          page.servers.length === 0 ? (
            <Empty>No server matches.</Empty>
          ) : (
            <>
              <p class="muted small">Registry: {page.registry_url}</p>
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Registry servers</caption>
                  <thead>
                    <tr>
                      <th scope="col">Server</th>
                      <th scope="col">Description</th>
                      <th scope="col">Add as</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.servers.map((e) => {
                      const name = String(e.server.name ?? '');
                      const version = String(e.server.version ?? 'latest');
                      return (
                        <tr key={`${name}@${version}`}>
                          <td>
                            <code>{name}</code> <span class="muted small">{version}</span>
                          </td>
                          <td>{String(e.server.description ?? '')}</td>
                          <td>
                            {e.options.length === 0 && <span class="muted">Nothing to add</span>}
                            {e.options.map((o) =>
                              o.supported ? (
                                <Button key={o.id} small onClick={() => setPicked({ server: name, version, option: o })}>
                                  {o.kind === 'remote' ? `Remote (${o.transport})` : o.summary.split(' ')[0]}
                                </Button>
                              ) : (
                                <Pill key={o.id} tone="neutral" title="No runtime is managed for this package type">
                                  {o.summary.split(' ')[0]} (not supported)
                                </Pill>
                              ),
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
              {page.next_cursor && (
                <Button small onClick={() => setCursor(page.next_cursor ?? undefined)}>
                  Next page
                </Button>
              )}
            </>
          )
        }
      </Loaded>
    </>
  );
}

function ImportForm(props: { server: string; version: string; option: Option; onCancel: () => void }) {
  const location = useLocation();
  const [name, setName] = useState(props.server.split('/').pop() ?? '');
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(props.option.inputs.filter((i) => i.default !== null).map((i) => [i.name, i.default ?? ''])),
  );
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const filled = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
      const server = await call(
        api.POST('/api/v1/registry/import', {
          body: { server: props.server, version: props.version, option: props.option.id, name, values: filled },
        }),
      );
      location.route(`/servers/${server.id}`);
    } catch (err) {
      setErrors(formErrors(err, ['name', ...props.option.inputs.map((i) => `values.${i.name}`)]));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} class="form-grid">
      <p class="wide">
        <code>{props.option.summary}</code>
      </p>
      <TextField label="Server name" name="name" required value={name} onValue={setName} error={errors.fields.name} />
      {props.option.inputs.map((i) => (
        <TextField
          key={`${i.kind}:${i.name}`}
          label={`${i.name} (${i.kind})`}
          name={`value_${i.name}`}
          type={i.secret ? 'password' : 'text'}
          autocomplete={i.secret ? 'new-password' : 'off'}
          required={i.required}
          value={values[i.name] ?? ''}
          onValue={(v) => setValues({ ...values, [i.name]: v })}
          error={errors.fields[`values.${i.name}`]}
          hint={[i.description, i.secret ? 'Stored encrypted, never shown again.' : null].filter(Boolean).join(' ')}
        />
      ))}
      <div class="wide">
        <FormError message={errors.form} />
      </div>
      <div class="form-actions wide">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Add server
        </Button>
      </div>
    </form>
  );
}
