import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { useAsync } from '../lib/hooks.js';
import { Button, Empty, ErrorNotice, Loaded, PageHeader, Pill, Section, Time, useConfirm } from '../ui/kit.js';

type Connection = Schema<'UpstreamConnection'>;

/**
 * Connections: the upstream servers behind OAuth that act as the person (each person connects
 * once; their calls carry their own token). Connect opens the upstream's consent page; the
 * callback brings the browser back here. A tool call without a connection points here too.
 */
export function UpstreamConnectionsView() {
  const { query } = useLocation();
  const list = useAsync(() => call(api.GET('/api/v1/users/me/upstream-connections')), []);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirm, confirmNode] = useConfirm();
  const connect = async (c: Connection) => {
    setError(null);
    setBusy(c.server_id);
    try {
      const started = await call(
        api.POST('/api/v1/users/me/upstream-connections/{server_id}/connect', { params: { path: { server_id: c.server_id } } }),
      );
      window.location.assign(started.authorization_url);
    } catch (err) {
      setError(err);
      setBusy(null);
    }
  };
  const disconnect = async (c: Connection) => {
    const ok = await confirm({
      title: `Disconnect ${c.server_name}?`,
      body: <p>Your tokens for it are deleted; its tools ask you to connect again.</p>,
      confirm: 'Disconnect',
    });
    if (!ok) return;
    setError(null);
    try {
      await call(api.DELETE('/api/v1/users/me/upstream-connections/{server_id}', { params: { path: { server_id: c.server_id } } }));
      await list.reload();
    } catch (err) {
      setError(err);
    }
  };
  const highlighted = query.server ?? query.connected;
  return (
    <>
      <PageHeader
        title="Connections"
        intro="Servers that act as you: connect each once, and your tool calls to it carry your own authorization. Toolgate keeps the tokens sealed and refreshes them; nobody, admins included, can read them."
      />
      {query.connected && (
        <p class="notice" role="status">
          Connected.
        </p>
      )}
      {error !== null && <ErrorNotice error={error} />}
      <Section title="Your connections">
        <Loaded state={list} feature="Connections">
          {(data) =>
            data.items.length === 0 ? (
              <Empty>No server needs your authorization.</Empty>
            ) : (
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Your connections</caption>
                  <thead>
                    <tr>
                      <th scope="col">Server</th>
                      <th scope="col">State</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((c) => (
                      <tr key={c.server_id} aria-current={highlighted === c.server_id ? 'true' : undefined}>
                        <th scope="row">
                          {c.server_name}
                          {c.issuer && <div class="muted small mono clamp">{c.issuer}</div>}
                        </th>
                        <td>
                          {c.status === 'connected' ? (
                            <Pill tone="ok">connected</Pill>
                          ) : c.status === 'needs_consent' ? (
                            <Pill tone="warn">connect again</Pill>
                          ) : (
                            <Pill tone="neutral">not connected</Pill>
                          )}
                        </td>
                        <td>{c.expires_at ? <Time iso={c.expires_at} relative /> : '—'}</td>
                        <td class="row-actions">
                          {c.status !== 'connected' && (
                            <Button small variant="primary" busy={busy === c.server_id} onClick={() => connect(c)}>
                              Connect
                            </Button>
                          )}
                          {c.status !== 'not_connected' && (
                            <Button small variant="danger" onClick={() => disconnect(c)} aria-label={`Disconnect ${c.server_name}`}>
                              Disconnect
                            </Button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Loaded>
      </Section>
      {confirmNode}
    </>
  );
}
