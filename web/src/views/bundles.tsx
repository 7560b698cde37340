import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ApiError, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync, useDebounced } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import { Button, Dialog, Empty, FormError, Loaded, PageHeader, Pager, Pill, TextArea, TextField, Time } from '../ui/kit.js';

type WithKey = Schema<'MCPBundleWithKeyResponse'>;

/**
 * Bundle endpoints seen in this page's lifetime (create, update and regenerate-key are the only
 * answers that carry the key). Memory only: never written to storage, gone on reload.
 */
export const knownEndpoints = new Map<string, string>();

export function rememberEndpoint(b: WithKey): void {
  knownEndpoints.set(b.id, b.mcp_endpoint);
}

/** The bundles: search, page, create. */
export function BundlesView() {
  const isAdmin = useIsAdmin();
  const location = useLocation();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const q = useDebounced(search);
  const list = useAsync(
    () => call(api.GET('/api/v1/bundles', { params: { query: { page, page_size: 25, ...(q ? { search: q } : {}) } } })),
    [page, q],
  );

  return (
    <>
      <PageHeader
        title="Bundles"
        intro={
          isAdmin
            ? 'Named, ordered sets of tools with per-tool overrides, each served on its own MCP endpoint.'
            : 'The bundles you created and those shared with you or your teams.'
        }
        actions={
          isAdmin && (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New bundle
            </Button>
          )
        }
      />
      <div class="toolbar">
        <TextField
          label="Search"
          name="search"
          type="search"
          value={search}
          onValue={(v) => (setSearch(v), setPage(1))}
          placeholder="Bundle name"
        />
      </div>
      <Loaded state={list} feature="Bundles">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{q ? 'No bundle matches.' : 'No bundles yet.'}</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Bundles</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col" class="num">
                        Tools
                      </th>
                      <th scope="col">Agent</th>
                      {!isAdmin && <th scope="col">Your access</th>}
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((b) => (
                      <tr key={b.id}>
                        <th scope="row">
                          <a href={`/bundles/${b.id}`}>{b.name}</a>
                          {b.description && <div class="muted small clamp">{b.description}</div>}
                        </th>
                        <td class="num">{b.tool_count}</td>
                        <td>{b.agent_id ? <code class="small">{b.agent_id}</code> : <span class="muted">—</span>}</td>
                        {!isAdmin && (
                          <td>
                            {b.access === 'view' ? (
                              <Pill tone="neutral" title="Shared with you to look at: not served on your gateway">
                                view only
                              </Pill>
                            ) : (
                              <Pill tone="ok" title="Served on your gateway">
                                use
                              </Pill>
                            )}
                          </td>
                        )}
                        <td>
                          <Time iso={b.updated_at} relative />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="Bundles" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog title="New bundle" open={creating} onClose={() => setCreating(false)}>
        <BundleForm
          onCancel={() => setCreating(false)}
          onDone={(b) => {
            setCreating(false);
            location.route(`/bundles/${b.id}`);
          }}
        />
      </Dialog>
    </>
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Creates a bundle, or renames / re-describes / re-links one (PUT). */
export function BundleForm(props: { bundle?: Schema<'MCPBundleDetailResponse'>; onDone: (b: WithKey) => void; onCancel: () => void }) {
  const b = props.bundle;
  const [name, setName] = useState(b?.name ?? '');
  const [description, setDescription] = useState(b?.description ?? '');
  const [agentId, setAgentId] = useState(b?.agent_id ?? '');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors(NO_ERRORS);
    const agent = agentId.trim();
    if (agent && !UUID.test(agent)) {
      setErrors({ fields: { agent_id: 'An agent id is a UUID, e.g. 3f2b8c1e-…' }, form: null });
      return;
    }
    setBusy(true);
    try {
      const body = { name: name.trim(), description: description.trim() || null, agent_id: agent || null };
      const result = b
        ? await call(api.PUT('/api/v1/bundles/{bundle_id}', { params: { path: { bundle_id: b.id } }, body }))
        : await call(api.POST('/api/v1/bundles', { body }));
      rememberEndpoint(result);
      props.onDone(result);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) setErrors({ fields: { name: err.message }, form: null });
      else setErrors(formErrors(err, ['name', 'description', 'agent_id']));
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
        rows={3}
        value={description}
        onValue={setDescription}
        error={errors.fields.description}
      />
      <TextField
        label="Agent id"
        name="agent_id"
        value={agentId}
        onValue={setAgentId}
        error={errors.fields.agent_id}
        hint="Optional: the UUID of the external agent this bundle belongs to (unique)."
      />
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {b ? 'Save' : 'Create bundle'}
        </Button>
      </div>
    </form>
  );
}
