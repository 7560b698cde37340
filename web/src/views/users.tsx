import { useState } from 'preact/hooks';
import { api, call, errorMessage, type Schema } from '../lib/api.js';
import { formErrors, intOrNull, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync, useDebounced } from '../lib/hooks.js';
import { atLeast, useSession, type Role, type User } from '../lib/session.js';
import {
  Button,
  Dialog,
  Empty,
  FormError,
  Loaded,
  PageHeader,
  Pager,
  Pill,
  SecretOnce,
  Section,
  SelectField,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';

const ROLES: { value: Role; label: string }[] = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
  { value: 'owner', label: 'Owner' },
];

/** Users (role, active state) and invitations (create with a link shown once, revoke). */
export function UsersView() {
  return (
    <>
      <PageHeader
        title="Users & invitations"
        intro="Who may use Toolgate, with which role. New people join through an invitation (they sign in with a configured provider), or an admin adds them with an API key."
      />
      <UsersSection />
      <InvitationsSection />
    </>
  );
}

function UsersSection() {
  const { user: me } = useSession();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [rowError, setRowError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<Schema<'UserCreated'> | null>(null);
  const [confirm, confirmNode] = useConfirm();
  const q = useDebounced(search);
  const users = useAsync(
    () => call(api.GET('/api/v1/users', { params: { query: { page, page_size: 25, ...(q ? { search: q } : {}) } } })),
    [page, q],
  );

  const update = async (u: User, body: Schema<'UserUpdate'>) => {
    setRowError(null);
    setBusy(u.id);
    try {
      await call(api.PATCH('/api/v1/users/{user_id}', { params: { path: { user_id: u.id } }, body }));
      await users.reload();
    } catch (err) {
      setRowError(`${u.email}: ${errorMessage(err)}`);
    } finally {
      setBusy(null);
    }
  };

  const deactivate = async (u: User) => {
    const ok = await confirm({
      title: `Deactivate ${u.email}?`,
      body: <p>They are signed out everywhere and their API keys stop working at once. You can reactivate them later.</p>,
      confirm: 'Deactivate',
    });
    if (ok) await update(u, { is_active: false });
  };

  // Only owners grant or change the owner role; nobody changes themselves (the server enforces it too).
  const roleOptions = atLeast(me.role, 'owner') ? ROLES : ROLES.filter((r) => r.value !== 'owner');

  return (
    <Section
      title="Users"
      actions={
        <Button onClick={() => setAdding(true)} title="For people who sign in with an API key (no sign-in provider needed)">
          Add user with an API key
        </Button>
      }
    >
      <div class="toolbar">
        <TextField
          label="Search"
          name="user_search"
          type="search"
          value={search}
          onValue={(v) => (setSearch(v), setPage(1))}
          placeholder="Email or name"
        />
      </div>
      {rowError && (
        <p class="notice error" role="alert">
          {rowError}
        </p>
      )}
      <Loaded state={users} feature="Users">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No user matches.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Users</caption>
                  <thead>
                    <tr>
                      <th scope="col">User</th>
                      <th scope="col">Role</th>
                      <th scope="col">State</th>
                      <th scope="col">Signs in with</th>
                      <th scope="col">Last sign-in</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((u) => {
                      const self = u.id === me.id;
                      const locked = self || (u.role === 'owner' && me.role !== 'owner');
                      return (
                        <tr key={u.id} class={u.is_active ? '' : 'inactive'}>
                          <th scope="row">
                            {u.name} {self && <Pill tone="info">you</Pill>}
                            <div class="muted small">{u.email}</div>
                          </th>
                          <td>
                            {locked ? (
                              u.role
                            ) : (
                              <label>
                                <span class="sr-only">Role of {u.email}</span>
                                <select
                                  value={u.role}
                                  disabled={busy === u.id}
                                  onChange={(e) => update(u, { role: (e.currentTarget as HTMLSelectElement).value as Role })}
                                >
                                  {roleOptions.map((r) => (
                                    <option key={r.value} value={r.value}>
                                      {r.label}
                                    </option>
                                  ))}
                                </select>
                              </label>
                            )}
                          </td>
                          <td>{u.is_active ? <Pill tone="ok">active</Pill> : <Pill tone="neutral">deactivated</Pill>}</td>
                          <td>{u.auth_provider ?? <span class="muted">API key</span>}</td>
                          <td>
                            <Time iso={u.last_login_at} relative />
                          </td>
                          <td class="row-actions">
                            {!locked &&
                              (u.is_active ? (
                                <Button small variant="danger" busy={busy === u.id} onClick={() => deactivate(u)}>
                                  Deactivate
                                </Button>
                              ) : (
                                <Button small busy={busy === u.id} onClick={() => update(u, { is_active: true })}>
                                  Reactivate
                                </Button>
                              ))}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
              <Pager label="Users" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog title="Add a user with an API key" open={adding} onClose={() => setAdding(false)}>
        {adding && (
          <AddUserForm
            canAddOwners={me.role === 'owner'}
            onCancel={() => setAdding(false)}
            onDone={(created) => {
              setAdding(false);
              setAdded(created);
              void users.reload();
            }}
          />
        )}
      </Dialog>
      <Dialog title="User added" open={added !== null} onClose={() => setAdded(null)}>
        {added && (
          <div class="stack">
            <p>
              Hand this key to <strong>{added.user.email}</strong>: they sign in to the console with it and use it for the MCP endpoints.
              They can create more keys, and revoke this one, under API keys.
            </p>
            <SecretOnce label="API key" value={added.api_key.key} warning="Copy it now: this is the only time it is shown." />
            <div class="form-actions">
              <Button variant="primary" onClick={() => setAdded(null)}>
                Done
              </Button>
            </div>
          </div>
        )}
      </Dialog>
      {confirmNode}
    </Section>
  );
}

type InvitationStatus = '' | Schema<'InvitationStatus'>;

function InvitationsSection() {
  const { user: me } = useSession();
  const [status, setStatus] = useState<InvitationStatus>('pending');
  const [page, setPage] = useState(1);
  const [inviting, setInviting] = useState(false);
  const [created, setCreated] = useState<Schema<'InvitationWithToken'> | null>(null);
  const [rowError, setRowError] = useState<string | null>(null);
  const [confirm, confirmNode] = useConfirm();
  const invitations = useAsync(
    () => call(api.GET('/api/v1/invitations', { params: { query: { page, page_size: 25, ...(status ? { status } : {}) } } })),
    [page, status],
  );

  const revoke = async (inv: Schema<'Invitation'>) => {
    const ok = await confirm({
      title: `Revoke the invitation of ${inv.email}?`,
      body: <p>The invitation link stops working at once.</p>,
      confirm: 'Revoke',
    });
    if (!ok) return;
    setRowError(null);
    try {
      await call(api.DELETE('/api/v1/invitations/{invitation_id}', { params: { path: { invitation_id: inv.id } } }));
      await invitations.reload();
    } catch (err) {
      setRowError(errorMessage(err));
    }
  };

  return (
    <Section
      title="Invitations"
      actions={
        <Button variant="primary" onClick={() => setInviting(true)}>
          Invite someone
        </Button>
      }
    >
      <div class="toolbar">
        <SelectField
          label="Status"
          name="invitation_status"
          value={status}
          onValue={(v) => (setStatus(v), setPage(1))}
          options={[
            { value: 'pending', label: 'Pending' },
            { value: 'accepted', label: 'Accepted' },
            { value: 'revoked', label: 'Revoked' },
            { value: 'expired', label: 'Expired' },
            { value: '', label: 'All' },
          ]}
        />
      </div>
      {rowError && (
        <p class="notice error" role="alert">
          {rowError}
        </p>
      )}
      <Loaded state={invitations} feature="Invitations">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No invitations{status ? ` ${status}` : ''}.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Email</th>
                      <th scope="col">Role</th>
                      <th scope="col">Status</th>
                      <th scope="col">Invited by</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((inv) => (
                      <tr key={inv.id}>
                        <th scope="row">{inv.email}</th>
                        <td>{inv.role}</td>
                        <td>
                          <Pill tone={inv.status === 'pending' ? 'info' : inv.status === 'accepted' ? 'ok' : 'neutral'}>{inv.status}</Pill>
                        </td>
                        <td>{inv.invited_by_name}</td>
                        <td>
                          <Time iso={inv.expires_at} relative />
                        </td>
                        <td class="row-actions">
                          {inv.status === 'pending' && (
                            <Button small variant="danger" onClick={() => revoke(inv)}>
                              Revoke
                            </Button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="Invitations" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog title="Invite someone" open={inviting} onClose={() => setInviting(false)}>
        {inviting && (
          <InviteForm
            canInviteOwners={me.role === 'owner'}
            onCancel={() => setInviting(false)}
            onDone={(inv) => {
              setInviting(false);
              setCreated(inv);
              void invitations.reload();
            }}
          />
        )}
      </Dialog>
      <Dialog title="Invitation created" open={created !== null} onClose={() => setCreated(null)}>
        {created && (
          <div class="stack">
            <p>
              Send this link to <strong>{created.email}</strong>. They accept it by signing in with that address before{' '}
              <Time iso={created.expires_at} />.
            </p>
            {created.warning && (
              <p class="notice warn" role="alert">
                {created.warning}
              </p>
            )}
            <SecretOnce
              label="Invitation link"
              value={created.accept_url}
              warning="The link is shown only now. Anyone with it can accept the invitation with the invited email."
            />
            <div class="form-actions">
              <Button variant="primary" onClick={() => setCreated(null)}>
                Done
              </Button>
            </div>
          </div>
        )}
      </Dialog>
      {confirmNode}
    </Section>
  );
}

function InviteForm(props: { canInviteOwners: boolean; onDone: (inv: Schema<'InvitationWithToken'>) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [hours, setHours] = useState('168');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const h = intOrNull(hours);
      props.onDone(await call(api.POST('/api/v1/invitations', { body: { email: email.trim(), role, expires_in_hours: h ?? 168 } })));
    } catch (err) {
      setErrors(formErrors(err, ['email', 'role', 'expires_in_hours']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack">
      <TextField label="Email" name="email" type="email" value={email} onValue={setEmail} required error={errors.fields.email} />
      <SelectField
        label="Role"
        name="role"
        value={role}
        onValue={setRole}
        options={props.canInviteOwners ? ROLES : ROLES.filter((r) => r.value !== 'owner')}
        error={errors.fields.role}
      />
      <TextField
        label="Valid for (hours)"
        name="expires_in_hours"
        type="number"
        min={1}
        max={720}
        value={hours}
        onValue={setHours}
        error={errors.fields.expires_in_hours}
      />
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Create invitation
        </Button>
      </div>
    </form>
  );
}

function AddUserForm(props: { canAddOwners: boolean; onDone: (created: Schema<'UserCreated'>) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      props.onDone(
        await call(api.POST('/api/v1/users', { body: { email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) } })),
      );
    } catch (err) {
      setErrors(formErrors(err, ['email', 'name', 'role']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack">
      <TextField label="Email" name="email" type="email" value={email} onValue={setEmail} required error={errors.fields.email} />
      <TextField label="Name" name="name" value={name} onValue={setName} error={errors.fields.name} />
      <SelectField
        label="Role"
        name="role"
        value={role}
        onValue={setRole}
        options={props.canAddOwners ? ROLES : ROLES.filter((r) => r.value !== 'owner')}
        error={errors.fields.role}
      />
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Add user
        </Button>
      </div>
    </form>
  );
}
