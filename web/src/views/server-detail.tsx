import { counted } from '../lib/text.js';
import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ApiError, call, errorMessage, type Schema } from '../lib/api.js';
import { useAsync, useDebounced, useInterval } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import {
  Button,
  Dialog,
  Empty,
  ErrorNotice,
  Loaded,
  Loading,
  ms,
  NotAvailable,
  PageHeader,
  Pager,
  Pill,
  Section,
  SelectField,
  TabPanel,
  Tabs,
  TextArea,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';
import { statusTone } from './dashboard.js';
import { ServerConnectionsSection } from './server-connections.js';
import { ServerForm } from './server-form.js';

type Server = Schema<'MCPServer'>;
type Tab = 'tools' | 'resources' | 'prompts' | 'skills';

/** How Toolgate authorizes itself to the server, in words. */
const AUTH_MODES: Record<Server['auth_mode'], string> = {
  none: 'static headers only',
  oauth_per_user: 'OAuth, each person’s own token',
  oauth_shared: 'OAuth, one shared credential',
  oauth_token_exchange: 'OAuth token exchange of each person’s Toolgate identity',
};

export async function serverAction(id: string, action: 'enable' | 'disable' | 'refresh'): Promise<Server> {
  const params = { params: { path: { server_id: id } } };
  if (action === 'enable') return call(api.POST('/api/v1/servers/{server_id}/enable', params));
  if (action === 'disable') return call(api.POST('/api/v1/servers/{server_id}/disable', params));
  return call(api.POST('/api/v1/servers/{server_id}/refresh', params));
}

/** One server: connection facts (secret names only), actions, and its tools, resources, prompts and skills. */
export function ServerDetailView() {
  const { params } = useRoute();
  const id = params.id!;
  const isAdmin = useIsAdmin();
  const location = useLocation();
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [tab, setTab] = useState<Tab>('tools');
  const [confirm, confirmNode] = useConfirm();
  const server = useAsync(() => call(api.GET('/api/v1/servers/{server_id}', { params: { path: { server_id: id } } })), [id]);
  useInterval(() => void server.reload(), 2500, server.data?.status === 'connecting');

  const act = async (action: 'enable' | 'disable' | 'refresh') => {
    setBusy(action);
    setActionError(null);
    try {
      server.set(await serverAction(id, action));
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(null);
    }
  };

  const remove = async (s: Server) => {
    const ok = await confirm({
      title: `Delete ${s.name}?`,
      body: (
        <p>
          The server is disconnected and deleted with its catalog entries, and <strong>its tools are removed from every bundle</strong>.
          This cannot be undone.
        </p>
      ),
      confirm: 'Delete server',
    });
    if (!ok) return;
    try {
      await call(api.DELETE('/api/v1/servers/{server_id}', { params: { path: { server_id: s.id } } }));
      location.route('/servers');
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <Loaded state={server} feature="Servers">
      {(s) => (
        <>
          <PageHeader
            title={s.name}
            intro={s.description ?? undefined}
            actions={
              isAdmin && (
                <>
                  <Button onClick={() => act(s.enabled ? 'disable' : 'enable')} busy={busy === 'enable' || busy === 'disable'}>
                    {s.enabled ? 'Disable' : 'Enable'}
                  </Button>
                  <Button onClick={() => act('refresh')} busy={busy === 'refresh'} disabled={!s.enabled}>
                    Refresh catalog
                  </Button>
                  <Button onClick={() => setEditing(true)}>Edit</Button>
                  <Button variant="danger" onClick={() => remove(s)}>
                    Delete
                  </Button>
                </>
              )
            }
          />
          <p>
            <a href="/servers">← All servers</a>
          </p>
          {actionError !== null && <ErrorNotice error={actionError} />}
          <Section title="Connection">
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Pill tone={statusTone(s.status)}>{s.status}</Pill>
                {s.last_error && <div class="error-text small">{s.last_error}</div>}
              </dd>
              <dt>Transport</dt>
              <dd>{s.transport}</dd>
              {s.redacted ? (
                <>
                  <dt>Launch and connection details</dt>
                  <dd class="muted">Shown to administrators only.</dd>
                  {s.url && (
                    <>
                      <dt>URL</dt>
                      <dd>
                        <code class="wrap">{s.url}</code>
                      </dd>
                    </>
                  )}
                </>
              ) : s.transport === 'stdio' ? (
                <>
                  <dt>Command</dt>
                  <dd>
                    <code class="wrap">{[s.command, ...s.args].join(' ')}</code>
                  </dd>
                  <dt>Environment</dt>
                  <dd>{Object.keys(s.env).length ? Object.keys(s.env).map((k) => <code key={k}>{k} </code>) : '—'}</dd>
                  <dt>Secret environment</dt>
                  <dd>
                    {s.secret_env_keys.length ? s.secret_env_keys.map((k) => <code key={k}>{k} </code>) : '—'}
                    {s.secret_env_keys.length > 0 && <span class="muted small"> (values are write-only)</span>}
                  </dd>
                  {s.cwd && (
                    <>
                      <dt>Working directory</dt>
                      <dd>
                        <code>{s.cwd}</code>
                      </dd>
                    </>
                  )}
                  <dt>Sandbox</dt>
                  <dd>
                    {s.sandboxed ? (
                      <Pill tone="ok">sandboxed</Pill>
                    ) : (
                      <span class="muted">not sandboxed: runs as Toolgate's user, with the host's files and network</span>
                    )}
                  </dd>
                </>
              ) : (
                <>
                  <dt>URL</dt>
                  <dd>
                    <code class="wrap">{s.url}</code>
                  </dd>
                  <dt>Headers</dt>
                  <dd>
                    {s.header_names.length ? s.header_names.map((k) => <code key={k}>{k} </code>) : '—'}
                    {s.header_names.length > 0 && <span class="muted small"> (values are write-only)</span>}
                  </dd>
                  <dt>Authorization</dt>
                  <dd>{AUTH_MODES[s.auth_mode]}</dd>
                </>
              )}
              <dt>Upstream</dt>
              <dd>
                {s.server_info ? `${s.server_info.title ?? s.server_info.name} ${s.server_info.version}` : '—'}
                {s.protocol_version && <span class="muted"> · MCP {s.protocol_version}</span>}
              </dd>
              <dt>Catalog</dt>
              <dd>
                {counted(s.tool_count, 'tool')} · {counted(s.resource_count, 'resource')} · {counted(s.prompt_count, 'prompt')}
              </dd>
              <dt>Probe latency</dt>
              <dd>{ms(s.latency_ms)}</dd>
              <dt>Last connected</dt>
              <dd>
                <Time iso={s.last_connected_at} />
              </dd>
              <dt>Timeouts</dt>
              <dd>
                calls {ms(s.call_timeout_ms)} · health check every {s.health_check_interval_seconds} s
              </dd>
            </dl>
          </Section>
          {isAdmin && s.sandboxed && <NetworkSection server={s} onSaved={(updated) => server.set(updated)} />}
          {isAdmin && s.auth_mode !== 'none' && <ServerConnectionsSection server={s} />}
          {isAdmin ? (
            <>
              <Tabs
                label="Catalog"
                value={tab}
                onValue={setTab}
                tabs={[
                  { key: 'tools', label: `Tools (${s.tool_count})` },
                  { key: 'resources', label: `Resources (${s.resource_count})` },
                  { key: 'prompts', label: `Prompts (${s.prompt_count})` },
                  { key: 'skills', label: 'Skills' },
                ]}
              />
              <TabPanel id={tab}>
                {tab === 'tools' && <ToolsTab serverId={s.id} version={s.updated_at + s.tool_count} />}
                {tab === 'resources' && <ResourcesTab serverId={s.id} />}
                {tab === 'prompts' && <PromptsTab serverId={s.id} />}
                {tab === 'skills' && <SkillsTab serverId={s.id} />}
              </TabPanel>
            </>
          ) : null}
          <Dialog title={`Edit ${s.name}`} open={editing} onClose={() => setEditing(false)} wide>
            <ServerForm
              server={s}
              onCancel={() => setEditing(false)}
              onDone={(updated) => {
                setEditing(false);
                server.set(updated);
              }}
            />
          </Dialog>
          {confirmNode}
        </>
      )}
    </Loaded>
  );
}

/**
 * The network of a sandboxed server: the hosts it asked for (a generated server's design, a
 * registry import's package registry) await an admin's answer; the approved list is all the egress
 * proxy lets it reach.
 */
function NetworkSection(props: { server: Server; onSaved: (s: Server) => void }) {
  const { server } = props;
  const [text, setText] = useState(server.network.approved_hosts.join('\n'));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const requested = server.network.requested_hosts;
  const save = async (hosts: string[]) => {
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const updated = await call(
        api.PUT('/api/v1/servers/{server_id}/network', { params: { path: { server_id: server.id } }, body: { approved_hosts: hosts } }),
      );
      setText(updated.network.approved_hosts.join('\n'));
      setSaved(true);
      props.onSaved(updated);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const lines = () => [
    ...new Set(
      text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ];
  return (
    <Section title="Network">
      {requested && (
        <div class="notice" role="status">
          <p>
            This server asks for network access to:{' '}
            {requested.length ? requested.map((h) => <code key={h}>{h} </code>) : <span class="muted">(no hosts named)</span>}
          </p>
          <p class="muted small">It has no network until you approve a list. Approving it lets the server reach exactly these hosts.</p>
          <Button onClick={() => save([...new Set([...server.network.approved_hosts, ...requested])])} busy={busy}>
            Approve these hosts
          </Button>{' '}
          <Button onClick={() => save(server.network.approved_hosts)} busy={busy}>
            Decline
          </Button>
        </div>
      )}
      <TextArea
        label="Approved hosts"
        name="approved_hosts"
        rows={3}
        mono
        value={text}
        onValue={(v) => {
          setText(v);
          setSaved(false);
        }}
        hint="One per line: host (ports 80 and 443), host:port, host:* or a CIDR range. Empty: no network. Private and loopback addresses also need the outbound allow-list."
      />
      {error !== null && <ErrorNotice error={error} />}
      <Button onClick={() => save(lines())} busy={busy}>
        Save network list
      </Button>
      {saved && <span class="muted small"> Saved; the server restarts with the new list.</span>}
    </Section>
  );
}

function ToolsTab(props: { serverId: string; version: string }) {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [pending, setPending] = useState<Set<string>>(new Set());
  const [optimistic, setOptimistic] = useState<Record<string, boolean>>({});
  const [error, setError] = useState<string | null>(null);
  const q = useDebounced(search);
  const tools = useAsync(
    () =>
      call(
        api.GET('/api/v1/servers/{server_id}/tools', {
          params: { path: { server_id: props.serverId }, query: { page, page_size: 50, ...(q ? { search: q } : {}) } },
        }),
      ),
    [props.serverId, page, q, props.version],
  );

  const select = async (ids: string[], enabled: boolean) => {
    setError(null);
    setPending(new Set(ids));
    // Show the new state at once; the reload confirms it, a failure puts the old one back.
    setOptimistic(Object.fromEntries(ids.map((id) => [id, enabled])));
    try {
      await call(
        api.PATCH('/api/v1/servers/{server_id}/tool-selection', {
          params: { path: { server_id: props.serverId } },
          body: { tool_ids: ids, enabled },
        }),
      );
      await tools.reload();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPending(new Set());
      setOptimistic({});
    }
  };

  return (
    <>
      <div class="toolbar">
        <TextField label="Search tools" name="tool_search" type="search" value={search} onValue={(v) => (setSearch(v), setPage(1))} />
        {tools.data && tools.data.items.length > 0 && (
          <div class="row-actions">
            <Button
              small
              onClick={() =>
                select(
                  tools.data!.items.map((t) => t.id),
                  true,
                )
              }
            >
              Enable all shown
            </Button>
            <Button
              small
              onClick={() =>
                select(
                  tools.data!.items.map((t) => t.id),
                  false,
                )
              }
            >
              Disable all shown
            </Button>
          </div>
        )}
      </div>
      {error && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
      <Loaded state={tools} feature="Tool listing">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No tools{q ? ' match' : ' yet: the server has not been synced, or offers none'}.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Tools of this server</caption>
                  <thead>
                    <tr>
                      <th scope="col">Enabled</th>
                      <th scope="col">Tool</th>
                      <th scope="col">Description</th>
                      <th scope="col">Availability</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((t) => (
                      <tr key={t.id}>
                        <td>
                          <label class="switch">
                            <input
                              type="checkbox"
                              role="switch"
                              checked={optimistic[t.id] ?? t.enabled}
                              aria-busy={pending.has(t.id) || undefined}
                              onChange={(e) => select([t.id], (e.currentTarget as HTMLInputElement).checked)}
                            />
                            <span class="sr-only">Enable {t.name}</span>
                          </label>
                        </td>
                        <th scope="row">
                          <code>{t.name}</code>
                          {t.title && <div class="muted small">{t.title}</div>}
                          {t.client_capabilities.length > 0 && (
                            <div
                              class="muted small"
                              title="The upstream lists this tool only to clients that declare these features; callers without them do not see it"
                            >
                              Only for clients with {t.client_capabilities.join(', ')}
                            </div>
                          )}
                        </th>
                        <td class="wrap">{t.description ? <div class="clamp-3">{t.description}</div> : <span class="muted">—</span>}</td>
                        <td>{t.available ? <Pill tone="ok">available</Pill> : <Pill tone="warn">unavailable</Pill>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="Tools" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

function ResourcesTab(props: { serverId: string }) {
  const [page, setPage] = useState(1);
  const list = useAsync(
    () =>
      call(
        api.GET('/api/v1/servers/{server_id}/resources', {
          params: { path: { server_id: props.serverId }, query: { page, page_size: 50 } },
        }),
      ),
    [props.serverId, page],
  );
  return (
    <Loaded state={list} feature="Resource listing">
      {(data) =>
        data.items.length === 0 ? (
          <Empty>No resources.</Empty>
        ) : (
          <>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">URI</th>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((r) => (
                    <tr key={r.id}>
                      <th scope="row" class="wrap">
                        <code>{r.uri}</code> {r.is_template && <Pill tone="info">template</Pill>}
                      </th>
                      <td>{r.title ?? r.name}</td>
                      <td>{r.mime_type ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager label="Resources" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
          </>
        )
      }
    </Loaded>
  );
}

function PromptsTab(props: { serverId: string }) {
  const [page, setPage] = useState(1);
  const list = useAsync(
    () =>
      call(
        api.GET('/api/v1/servers/{server_id}/prompts', { params: { path: { server_id: props.serverId }, query: { page, page_size: 50 } } }),
      ),
    [props.serverId, page],
  );
  return (
    <Loaded state={list} feature="Prompt listing">
      {(data) =>
        data.items.length === 0 ? (
          <Empty>No prompts.</Empty>
        ) : (
          <>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Prompt</th>
                    <th scope="col">Description</th>
                    <th scope="col">Arguments</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((p) => (
                    <tr key={p.id}>
                      <th scope="row">
                        <code>{p.name}</code>
                      </th>
                      <td class="wrap">{p.description ?? '—'}</td>
                      <td>{p.arguments.map((a) => `${a.name}${a.required ? '*' : ''}`).join(', ') || '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager label="Prompts" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
          </>
        )
      }
    </Loaded>
  );
}

/** Attach a saved skill to this server: its workflow's script tools become tools of the server. */
function SkillsTab(props: { serverId: string }) {
  const skills = useAsync(() => call(api.GET('/api/v1/skills', { params: { query: { page_size: 100 } } })), []);
  const [skillId, setSkillId] = useState('');
  const [result, setResult] = useState<Schema<'SkillAttachmentResult'> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (skills.error instanceof ApiError && skills.error.notImplemented) return <NotAvailable feature="Skills" />;
  if (!skills.data) return skills.error ? <ErrorNotice error={skills.error} /> : <Loading />;
  const params = { params: { path: { server_id: props.serverId, skill_id: skillId } } };
  const attach = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await call(api.POST('/api/v1/servers/{server_id}/skills/{skill_id}/attach', params)));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const detach = async () => {
    setBusy(true);
    setError(null);
    try {
      await call(api.DELETE('/api/v1/servers/{server_id}/skills/{skill_id}', params));
      setResult(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  if (!skills.data.items.length)
    return (
      <Empty>
        No saved skills yet. <a href="/skills">Import or generate one</a>.
      </Empty>
    );
  return (
    <div class="stack">
      <p class="muted">Attaching a skill registers the script tools of its workflow as tools of this server.</p>
      <div class="toolbar">
        <SelectField
          label="Skill"
          name="skill"
          value={skillId}
          onValue={setSkillId}
          options={[{ value: '', label: 'Choose a skill…' }, ...skills.data.items.map((k) => ({ value: k.id, label: k.name }))]}
        />
        <div class="row-actions">
          <Button variant="primary" disabled={!skillId} busy={busy} onClick={attach}>
            Attach
          </Button>
          <Button disabled={!skillId} onClick={detach}>
            Detach
          </Button>
        </div>
      </div>
      {error !== null &&
        (error instanceof ApiError && error.notImplemented ? <NotAvailable feature="Attaching skills" /> : <ErrorNotice error={error} />)}
      {result && (
        <p class="notice ok" role="status">
          Attached. Tools registered:{' '}
          {result.tools_registered.length ? result.tools_registered.join(', ') : 'none (the skill defines no workflow)'}.
        </p>
      )}
    </div>
  );
}
