import { useState } from 'preact/hooks';
import { api, ApiError, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync, useDebounced } from '../lib/hooks.js';
import {
  Button,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  PageHeader,
  Pager,
  Pill,
  SelectField,
  TextArea,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';

type Team = Schema<'Team'>;
type Group = Schema<'TeamOAuthGroup'>;

/**
 * Teams (admins): who is in which team, by hand or by the OAuth group claims that place users at
 * sign-in. Bundles are shared with teams on each bundle's page.
 */
export function TeamsView() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Team | 'new' | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const q = useDebounced(search);
  const list = useAsync(
    () => call(api.GET('/api/v1/teams', { params: { query: { page, page_size: 25, ...(q ? { search: q } : {}) } } })),
    [page, q],
  );

  return (
    <>
      <PageHeader
        title="Teams"
        intro="Groups of users. Bundles shared with a team are usable (or visible) by its members on their gateway and in the console. OAuth group claims can place users in teams when they sign in."
        actions={
          <Button variant="primary" onClick={() => setEditing('new')}>
            New team
          </Button>
        }
      />
      <div class="toolbar">
        <TextField
          label="Search"
          name="search"
          type="search"
          value={search}
          onValue={(v) => (setSearch(v), setPage(1))}
          placeholder="Team name"
        />
      </div>
      <Loaded state={list} feature="Teams">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{q ? 'No team matches.' : 'No teams yet.'}</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Teams</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col" class="num">
                        Members
                      </th>
                      <th scope="col">OAuth groups</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((t) => (
                      <tr key={t.id}>
                        <th scope="row">
                          <button type="button" class="link" onClick={() => setOpen(t.id)}>
                            {t.name}
                          </button>
                          {t.description && <div class="muted small clamp">{t.description}</div>}
                        </th>
                        <td class="num">{t.member_count}</td>
                        <td>
                          {t.oauth_groups.length === 0 ? (
                            <span class="muted">—</span>
                          ) : (
                            t.oauth_groups.map((g) => (
                              <Pill key={`${g.provider_type}:${g.group}`} tone="neutral">
                                {g.provider_type}: {g.group}
                              </Pill>
                            ))
                          )}
                        </td>
                        <td>
                          <Time iso={t.updated_at} relative />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="Teams" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog
        title={editing === 'new' ? 'New team' : `Edit ${editing?.name ?? ''}`}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <TeamForm
            team={editing === 'new' ? undefined : editing}
            onCancel={() => setEditing(null)}
            onDone={(t) => {
              setEditing(null);
              setOpen(t.id);
              void list.reload();
            }}
          />
        )}
      </Dialog>
      <Dialog title="Team" open={open !== null} onClose={() => setOpen(null)} wide>
        {open !== null && (
          <TeamDetail
            id={open}
            onEdit={(t) => (setOpen(null), setEditing(t))}
            onChanged={() => void list.reload()}
            onDeleted={() => (setOpen(null), void list.reload())}
          />
        )}
      </Dialog>
    </>
  );
}

/** One team: its members (add by email, remove) and the way to delete it. */
function TeamDetail(props: { id: string; onEdit: (t: Team) => void; onChanged: () => void; onDeleted: () => void }) {
  const team = useAsync(() => call(api.GET('/api/v1/teams/{team_id}', { params: { path: { team_id: props.id } } })), [props.id]);
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmDialog] = useConfirm();

  const add = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const found = await call(api.GET('/api/v1/users', { params: { query: { search: email.trim(), page_size: 2 } } }));
      const user =
        found.items.find((u) => u.email.toLowerCase() === email.trim().toLowerCase()) ??
        (found.items.length === 1 ? found.items[0] : undefined);
      if (!user) throw new Error(`No user with the email ${email.trim()}`);
      await call(api.PUT('/api/v1/teams/{team_id}/members/{user_id}', { params: { path: { team_id: props.id, user_id: user.id } } }));
      setEmail('');
      await team.reload();
      props.onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (userId: string) => {
    setError(null);
    try {
      await call(api.DELETE('/api/v1/teams/{team_id}/members/{user_id}', { params: { path: { team_id: props.id, user_id: userId } } }));
      await team.reload();
      props.onChanged();
    } catch (err) {
      setError(err);
    }
  };
  const destroy = async (t: Team) => {
    const ok = await confirm({
      title: `Delete ${t.name}?`,
      body: 'Its members lose at once the bundles they reached only through this team, and its shares are removed.',
      confirm: 'Delete team',
    });
    if (!ok) return;
    try {
      await call(api.DELETE('/api/v1/teams/{team_id}', { params: { path: { team_id: t.id } } }));
      props.onDeleted();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <Loaded state={team} feature="Team">
      {(t) => (
        <div class="stack">
          <h3>{t.name}</h3>
          {t.description && <p class="muted">{t.description}</p>}
          {error !== null && <ErrorNotice error={error} />}
          <form onSubmit={add} class="toolbar">
            <TextField label="Add a user by email" name="email" type="email" value={email} onValue={setEmail} required />
            <Button type="submit" variant="primary" busy={busy}>
              Add
            </Button>
          </form>
          {t.members.length === 0 ? (
            <Empty>No members yet.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Members of {t.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Email</th>
                    <th scope="col">Added by</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {t.members.map((m) => (
                    <tr key={m.user_id}>
                      <th scope="row">{m.name}</th>
                      <td>{m.email}</td>
                      <td>
                        <Pill
                          tone={m.source === 'oauth' ? 'info' : 'neutral'}
                          title={m.source === 'oauth' ? 'Placed by an OAuth group claim at sign-in' : 'Added by an admin'}
                        >
                          {m.source === 'oauth' ? 'OAuth group' : 'admin'}
                        </Pill>
                      </td>
                      <td>
                        <Button small variant="ghost" onClick={() => void remove(m.user_id)} aria-label={`Remove ${m.name} from ${t.name}`}>
                          Remove
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div class="form-actions">
            <Button variant="danger" onClick={() => void destroy(t)}>
              Delete team
            </Button>
            <Button onClick={() => props.onEdit(t)}>Edit</Button>
          </div>
          {confirmDialog}
        </div>
      )}
    </Loaded>
  );
}

/** Creates a team or changes its name, description and OAuth group mappings. */
function TeamForm(props: { team?: Team; onDone: (t: Team) => void; onCancel: () => void }) {
  const t = props.team;
  const [name, setName] = useState(t?.name ?? '');
  const [description, setDescription] = useState(t?.description ?? '');
  const [groups, setGroups] = useState<Group[]>(t?.oauth_groups ?? []);
  const [provider, setProvider] = useState('');
  const [group, setGroup] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const providers = useAsync(() => call(api.GET('/api/v1/settings/auth/providers')), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors(NO_ERRORS);
    setBusy(true);
    try {
      const body = { name: name.trim(), description: description.trim() || null, oauth_groups: groups };
      const result = t
        ? await call(api.PATCH('/api/v1/teams/{team_id}', { params: { path: { team_id: t.id } }, body }))
        : await call(api.POST('/api/v1/teams', { body }));
      props.onDone(result);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) setErrors({ fields: { name: err.message }, form: null });
      else setErrors(formErrors(err, ['name', 'description', 'oauth_groups']));
    } finally {
      setBusy(false);
    }
  };
  const providerTypes = providers.data?.items.map((p) => p.provider_type) ?? [];
  const chosen = provider || providerTypes[0] || '';

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
      <fieldset class="stack">
        <legend>OAuth groups</legend>
        <p class="muted small">
          A user signing in through the provider whose group claim (<code>groups</code> unless the provider sets <code>groups_claim</code>)
          lists one of these joins the team; a later sign-in without it takes them out again. Members added by hand stay.
        </p>
        {groups.map((g, i) => (
          <div key={`${g.provider_type}:${g.group}`} class="copy-row">
            <span>
              <code>{g.provider_type}</code>: {g.group}
            </span>
            <Button
              small
              variant="ghost"
              onClick={() => setGroups(groups.filter((_, j) => j !== i))}
              aria-label={`Remove group ${g.group}`}
            >
              Remove
            </Button>
          </div>
        ))}
        {providerTypes.length === 0 ? (
          <p class="muted small">No OAuth provider is configured.</p>
        ) : (
          <div class="toolbar">
            <SelectField label="Provider" name="provider" value={chosen} onValue={setProvider} options={providerTypes} />
            <TextField label="Group" name="group" value={group} onValue={setGroup} maxLength={256} />
            <Button
              onClick={() => {
                if (!group.trim() || !chosen) return;
                setGroups([...groups, { provider_type: chosen, group: group.trim() }]);
                setGroup('');
              }}
            >
              Add group
            </Button>
          </div>
        )}
        {errors.fields.oauth_groups && <FormError message={errors.fields.oauth_groups} />}
      </fieldset>
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {t ? 'Save' : 'Create team'}
        </Button>
      </div>
    </form>
  );
}
