import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, call, errorMessage, type Schema } from '../lib/api.js';
import { useAsync, useDebounced, useInterval } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import { Button, Dialog, Empty, Loaded, ms, PageHeader, Pager, Pill, SelectField, TextField } from '../ui/kit.js';
import { statusTone } from './dashboard.js';
import { serverAction } from './server-detail.js';
import { ServerForm } from './server-form.js';
import { OpenApiServerForm } from './openapi-server-form.js';

type Server = Schema<'MCPServer'>;
type StatusFilter = '' | Schema<'MCPServerStatus'>;

/** Registered upstream servers: status at a glance, add, enable/disable, refresh. */
export function ServersView() {
  const isAdmin = useIsAdmin();
  const location = useLocation();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<StatusFilter>('');
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const [addingOpenApi, setAddingOpenApi] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const q = useDebounced(search);
  const list = useAsync(
    () =>
      call(
        api.GET('/api/v1/servers', {
          params: { query: { page, page_size: 25, ...(q ? { search: q } : {}), ...(status ? { status } : {}) } },
        }),
      ),
    [page, q, status],
  );
  // While a server is connecting, follow it until it settles.
  useInterval(() => void list.reload(), 3000, !!list.data?.items.some((s) => s.status === 'connecting'));

  const act = async (server: Server, action: 'enable' | 'disable' | 'refresh') => {
    setActionError(null);
    try {
      await serverAction(server.id, action);
      await list.reload();
    } catch (err) {
      setActionError(`${server.name}: ${errorMessage(err)}`);
    }
  };

  return (
    <>
      <PageHeader
        title="Servers"
        intro="Upstream MCP servers whose tools the gateway offers."
        actions={
          isAdmin && (
            <>
              <Button variant="primary" onClick={() => setAdding(true)}>
                Add server
              </Button>
              <Button onClick={() => setAddingOpenApi(true)}>Add REST API (OpenAPI)</Button>
            </>
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
          placeholder="Name or description"
        />
        <SelectField
          label="Status"
          name="status"
          value={status}
          onValue={(v) => (setStatus(v), setPage(1))}
          options={[
            { value: '', label: 'Any status' },
            { value: 'connected', label: 'Connected' },
            { value: 'connecting', label: 'Connecting' },
            { value: 'error', label: 'Error' },
            { value: 'disabled', label: 'Disabled' },
          ]}
        />
      </div>
      {actionError && (
        <p class="notice error" role="alert">
          {actionError}
        </p>
      )}
      <Loaded state={list} feature="Servers">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{q || status ? 'No server matches.' : 'No servers yet. Add the first one to bring its tools into the gateway.'}</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Registered servers</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Transport</th>
                      <th scope="col">Status</th>
                      <th scope="col" class="num">
                        Tools
                      </th>
                      <th scope="col" class="num">
                        Latency
                      </th>
                      {isAdmin && <th scope="col">Actions</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((s) => (
                      <tr key={s.id}>
                        <th scope="row">
                          <a href={`/servers/${s.id}`}>{s.name}</a>
                          {s.description && <div class="muted small clamp">{s.description}</div>}
                        </th>
                        <td>{s.transport}</td>
                        <td>
                          <Pill tone={statusTone(s.status)} title={s.last_error ?? undefined}>
                            {s.status}
                          </Pill>
                          {s.status === 'error' && s.last_error && <div class="small error-text clamp">{s.last_error}</div>}
                          {s.network.requested_hosts && (
                            <div>
                              <Pill tone="warn" title="This sandboxed server asks for network access; answer it on its page">
                                network request
                              </Pill>
                            </div>
                          )}
                        </td>
                        <td class="num">{s.tool_count}</td>
                        <td class="num">{ms(s.latency_ms)}</td>
                        {isAdmin && (
                          <td class="row-actions">
                            <Button
                              small
                              onClick={() => act(s, s.enabled ? 'disable' : 'enable')}
                              aria-label={`${s.enabled ? 'Disable' : 'Enable'} ${s.name}`}
                            >
                              {s.enabled ? 'Disable' : 'Enable'}
                            </Button>
                            <Button small onClick={() => act(s, 'refresh')} disabled={!s.enabled} aria-label={`Refresh ${s.name}`}>
                              Refresh
                            </Button>
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="Servers" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog title="Add a server" open={adding} onClose={() => setAdding(false)} wide>
        <ServerForm
          onCancel={() => setAdding(false)}
          onDone={(server) => {
            setAdding(false);
            location.route(`/servers/${server.id}`);
          }}
        />
      </Dialog>
      <Dialog title="Add a REST API from its OpenAPI document" open={addingOpenApi} onClose={() => setAddingOpenApi(false)} wide>
        <OpenApiServerForm
          onCancel={() => setAddingOpenApi(false)}
          onDone={(server) => {
            setAddingOpenApi(false);
            location.route(`/servers/${server.id}`);
          }}
        />
      </Dialog>
    </>
  );
}
