import { api, call, type Schema } from '../lib/api.js';
import { useAsync } from '../lib/hooks.js';
import { Empty, Loaded, Pill, Section, Time } from '../ui/kit.js';

type Server = Schema<'MCPServer'>;

/**
 * Who has connected a server behind OAuth, for admins: per person (and the shared credential)
 * whether a connection exists, at which issuer, with which scopes, and until when. Never a token:
 * the API has none to give. People connect themselves on their Connections page.
 */
export function ServerConnectionsSection(props: { server: Server }) {
  const { server } = props;
  const list = useAsync(
    () => call(api.GET('/api/v1/servers/{server_id}/connections', { params: { path: { server_id: server.id } } })),
    [server.id, server.updated_at],
  );
  const intro =
    server.auth_mode === 'oauth_per_user'
      ? 'Each person connects once on their Connections page; their calls carry their own token.'
      : server.auth_mode === 'oauth_token_exchange'
        ? 'Each person’s token is exchanged for their Toolgate identity on their first call; nobody connects by hand.'
        : 'One credential for everyone.';
  return (
    <Section title="Connections">
      <p class="muted">{intro} Tokens stay sealed in Toolgate; nobody can read them here.</p>
      <Loaded state={list} feature="Connections">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>Nobody has connected this server yet: it shows “needs authorization” until someone does.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Connections to {server.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Person</th>
                    <th scope="col">State</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Refreshed</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((c) => (
                    <tr key={c.user_id ?? 'shared'}>
                      <th scope="row">
                        {c.user_id === null ? 'Shared credential' : (c.user_email ?? 'a deleted user')}
                        <div class="muted small mono clamp">{c.issuer}</div>
                      </th>
                      <td>{c.status === 'connected' ? <Pill tone="ok">connected</Pill> : <Pill tone="warn">must connect again</Pill>}</td>
                      <td class="mono small">{c.scopes.length ? c.scopes.join(' ') : '—'}</td>
                      <td>
                        <Time iso={c.expires_at} relative />
                      </td>
                      <td>
                        <Time iso={c.refreshed_at} relative />
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
  );
}
