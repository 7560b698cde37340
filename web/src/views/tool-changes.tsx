import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { useAsync } from '../lib/hooks.js';
import { Button, Empty, ErrorNotice, Loaded, PageHeader, Pill, Time } from '../ui/kit.js';

type Change = Schema<'ToolChange'>;
type Definition = Schema<'ToolDefinition'>;

/** Pretty JSON of one field of a definition, for the side-by-side diff. */
function show(d: Definition, field: Change['changed_fields'][number]): string {
  const v = d[field];
  return typeof v === 'string' ? v : JSON.stringify(v ?? null, null, 2);
}

/**
 * Tool definitions changed upstream since they were approved (admins): each is withheld from
 * every bundle and the gateway until approved here. The approved and the current definition are
 * shown side by side, field by field, the changed fields first.
 */
export function ToolChangesView() {
  const changes = useAsync(() => call(api.GET('/api/v1/tool-changes')), []);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const approve = async (c: Change) => {
    setBusy(c.tool_id);
    setError(null);
    try {
      await call(api.POST('/api/v1/tool-changes/{tool_id}/approve', { params: { path: { tool_id: c.tool_id } } }));
      await changes.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <PageHeader
        title="Tool changes"
        intro="Tools whose description, input schema or annotations changed upstream after they were approved. Each is withheld from every bundle and the gateway until you approve the new definition: read what changed before you do."
      />
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={changes} feature="Tool changes">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No tool changed since it was approved.</Empty>
          ) : (
            <div class="stack">
              {data.items.map((c) => (
                <section key={c.tool_id} class="card stack" aria-label={`${c.server_name} / ${c.name}`}>
                  <h2>
                    {c.server_name} / <code>{c.name}</code>{' '}
                    {c.changed_fields.map((f) => (
                      <Pill key={f} tone="warn">
                        {f.replace('_', ' ')} changed
                      </Pill>
                    ))}
                  </h2>
                  <p class="muted small">
                    Seen <Time iso={c.changed_at} relative />. Withheld until approved.
                  </p>
                  <div class="table-wrap">
                    <table>
                      <caption class="sr-only">Approved and current definition of {c.name}</caption>
                      <thead>
                        <tr>
                          <th scope="col">Field</th>
                          <th scope="col">Approved</th>
                          <th scope="col">Now upstream</th>
                        </tr>
                      </thead>
                      <tbody>
                        {(['description', 'input_schema', 'annotations'] as const).map((field) => (
                          <tr key={field} class={c.changed_fields.includes(field) ? 'changed' : undefined}>
                            <th scope="row">
                              {field.replace('_', ' ')}
                              {c.changed_fields.includes(field) && <span class="sr-only"> (changed)</span>}
                            </th>
                            <td>
                              <pre class="small wrap">{show(c.approved, field)}</pre>
                            </td>
                            <td>
                              <pre class="small wrap">{show(c.current, field)}</pre>
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  <div>
                    <Button variant="primary" busy={busy === c.tool_id} onClick={() => void approve(c)}>
                      Approve the new definition
                    </Button>
                  </div>
                </section>
              ))}
            </div>
          )
        }
      </Loaded>
    </>
  );
}
