import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, lines, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import {
  Button,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  PageHeader,
  Pill,
  Section,
  TextArea,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';

type Grant = Schema<'OAuthGrant'>;
type Client = Schema<'OAuthClient'>;

/**
 * Connected apps: the MCP clients a person approved by OAuth (disconnect any of them), and for
 * admins everyone's connections and the registered clients (pre-register, approve, delete).
 */
export function ConnectedAppsView() {
  const isAdmin = useIsAdmin();
  return (
    <>
      <PageHeader
        title="Connected apps"
        intro="MCP clients you allowed to use your tools by signing in with OAuth. Disconnecting one stops it at its next request."
      />
      <GrantsSection title="Your connected apps" mine />
      {isAdmin && <GrantsSection title="Everyone's connected apps" mine={false} />}
      {isAdmin && <ClientsSection />}
    </>
  );
}

function GrantsSection(props: { title: string; mine: boolean }) {
  const grants = useAsync(
    () => call(props.mine ? api.GET('/api/v1/users/me/oauth-grants') : api.GET('/api/v1/oauth/grants')),
    [props.mine],
  );
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();
  const revoke = async (g: Grant) => {
    const ok = await confirm({
      title: `Disconnect ${g.client_name}?`,
      body: <p>Its tokens stop working at once; it has to ask for approval again.</p>,
      confirm: 'Disconnect',
    });
    if (!ok) return;
    setError(null);
    try {
      if (props.mine) await call(api.DELETE('/api/v1/users/me/oauth-grants/{grant_id}', { params: { path: { grant_id: g.id } } }));
      else await call(api.DELETE('/api/v1/oauth/grants/{grant_id}', { params: { path: { grant_id: g.id } } }));
      await grants.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Section title={props.title}>
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={grants} feature="Connected apps">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No connected apps.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">{props.title}</caption>
                <thead>
                  <tr>
                    <th scope="col">Application</th>
                    {!props.mine && <th scope="col">Person</th>}
                    <th scope="col">Reaches</th>
                    <th scope="col">Connected</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((g) => (
                    <tr key={g.id}>
                      <th scope="row">
                        {g.client_name}
                        <div class="muted small mono clamp">{g.client_id}</div>
                      </th>
                      {!props.mine && <td>{g.user_email}</td>}
                      <td class="mono small">{new URL(g.resource).pathname}</td>
                      <td>
                        <Time iso={g.created_at} relative />
                      </td>
                      <td>
                        <Time iso={g.last_used_at} relative />
                      </td>
                      <td class="row-actions">
                        <Button small variant="danger" onClick={() => revoke(g)} aria-label={`Disconnect ${g.client_name}`}>
                          Disconnect
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
      {confirmNode}
    </Section>
  );
}

function ClientsSection() {
  const clients = useAsync(() => call(api.GET('/api/v1/oauth/clients')), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Client | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      await clients.reload();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (c: Client) => {
    const ok = await confirm({
      title: `Delete ${c.name}?`,
      body: <p>Every connection it holds ends at once, and it can no longer obtain tokens.</p>,
      confirm: 'Delete client',
    });
    if (ok) await act(() => call(api.DELETE('/api/v1/oauth/clients/{client_id}', { params: { path: { client_id: c.client_id } } })));
  };
  return (
    <Section
      title="Registered OAuth clients"
      actions={
        <Button variant="primary" onClick={() => setCreating(true)}>
          Register client
        </Button>
      }
    >
      {error !== null && <ErrorNotice error={error} />}
      {created && (
        <p class="notice" role="status">
          Registered {created.name}. Configure the client with the client id <code>{created.client_id}</code>.
        </p>
      )}
      <Loaded state={clients} feature="OAuth clients">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No registered clients. Clients with a metadata document URL need no registration.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Registered OAuth clients</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Registered</th>
                    <th scope="col">Redirect URIs</th>
                    <th scope="col">State</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((c) => (
                    <tr key={c.client_id}>
                      <th scope="row">
                        {c.name}
                        <div class="muted small mono clamp">{c.client_id}</div>
                      </th>
                      <td>
                        {c.kind === 'admin' ? 'by an admin' : 'by itself'}, <Time iso={c.created_at} relative />
                      </td>
                      <td class="mono small">{c.redirect_uris.join(' ')}</td>
                      <td>{c.status === 'active' ? <Pill tone="ok">active</Pill> : <Pill tone="warn">awaiting approval</Pill>}</td>
                      <td class="row-actions">
                        {c.status === 'pending' && (
                          <Button
                            small
                            onClick={() =>
                              act(() =>
                                call(
                                  api.POST('/api/v1/oauth/clients/{client_id}/approve', { params: { path: { client_id: c.client_id } } }),
                                ),
                              )
                            }
                          >
                            Approve
                          </Button>
                        )}
                        <Button small variant="danger" onClick={() => remove(c)} aria-label={`Delete ${c.name}`}>
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
      <CreateClientDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(c) => {
          setCreating(false);
          setCreated(c);
          void clients.reload();
        }}
      />
      {confirmNode}
    </Section>
  );
}

function CreateClientDialog(props: { open: boolean; onClose: () => void; onCreated: (c: Client) => void }) {
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      props.onCreated(await call(api.POST('/api/v1/oauth/clients', { body: { name: name.trim(), redirect_uris: lines(uris) } })));
      setName('');
      setUris('');
    } catch (err) {
      setErrors(formErrors(err, ['name', 'redirect_uris']));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Register an OAuth client" open={props.open} onClose={props.onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" name="name" value={name} onValue={setName} required error={errors.fields.name} />
        <TextArea
          label="Redirect URIs"
          name="redirect_uris"
          rows={3}
          mono
          value={uris}
          onValue={setUris}
          required
          error={errors.fields.redirect_uris}
          hint="One per line: https URLs, http://127.0.0.1 loopback URLs (any port), or app schemes such as vscode://."
        />
        <FormError message={errors.form} />
        <div class="actions">
          <Button type="submit" variant="primary" busy={busy}>
            Register
          </Button>
          <Button onClick={props.onClose}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  );
}
