import { useLocation, useRoute } from 'preact-iso';
import { useMemo, useState } from 'preact/hooks';
import { api, ApiError, call, type Schema } from '../lib/api.js';
import { effectiveWireTool } from '../lib/effective-tool.js';
import { formErrors, NO_ERRORS, parseJsonObject, type FormErrors } from '../lib/forms.js';
import { useAsync, useDebounced } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import {
  Button,
  Checkbox,
  CheckGroup,
  CopyButton,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  Loading,
  PageHeader,
  Pill,
  Section,
  SelectField,
  TextArea,
  TextField,
  useConfirm,
} from '../ui/kit.js';
import { BundleForm, knownEndpoints, rememberEndpoint } from './bundles.js';
import { BundleGuardrails } from './guardrails.js';

type Bundle = Schema<'MCPBundleDetailResponse'>;
type BundleTool = Schema<'BundleTool'>;
type CatalogTool = Schema<'CatalogTool'>;

/** Client configuration snippets for a bundle endpoint. */
export function clientSnippets(name: string, url: string): { label: string; text: string }[] {
  const key =
    name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'toolgate';
  return [
    {
      label: 'mcp.json (Claude Desktop, Cursor, VS Code and most MCP clients)',
      text: JSON.stringify({ mcpServers: { [key]: { type: 'http', url } } }, null, 2),
    },
    { label: 'Claude Code', text: `claude mcp add --transport http ${key} ${url}` },
  ];
}

/** One bundle: connect a client, add tools from the catalog, override and reorder them. */
export function BundleDetailView() {
  const { params } = useRoute();
  const id = params.id!;
  const isAdmin = useIsAdmin();
  const location = useLocation();
  const bundle = useAsync(() => call(api.GET('/api/v1/bundles/{bundle_id}', { params: { path: { bundle_id: id } } })), [id]);
  const [endpoint, setEndpoint] = useState<string | null>(knownEndpoints.get(id) ?? null);
  const [editing, setEditing] = useState(false);
  const [adding, setAdding] = useState(false);
  const [overriding, setOverriding] = useState<BundleTool | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirm, confirmNode] = useConfirm();

  const withKey = (b: Schema<'MCPBundleWithKeyResponse'>) => {
    rememberEndpoint(b);
    setEndpoint(b.mcp_endpoint);
  };

  const reveal = async (b: Bundle) => {
    setBusy('reveal');
    setError(null);
    try {
      // The key is returned only by create, update and regenerate-key: an update that changes nothing reveals it.
      withKey(await call(api.PUT('/api/v1/bundles/{bundle_id}', { params: { path: { bundle_id: b.id } }, body: { name: b.name } })));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const regenerate = async (b: Bundle) => {
    const ok = await confirm({
      title: 'Regenerate the bundle key?',
      body: <p>The current endpoint URL stops working at once and its MCP sessions end. Every client must be given the new URL.</p>,
      confirm: 'Regenerate key',
    });
    if (!ok) return;
    setError(null);
    try {
      withKey(await call(api.POST('/api/v1/bundles/{bundle_id}/regenerate-key', { params: { path: { bundle_id: b.id } } })));
    } catch (err) {
      setError(err);
    }
  };

  const remove = async (b: Bundle) => {
    const ok = await confirm({
      title: `Delete ${b.name}?`,
      body: <p>The bundle and its overrides are deleted, its endpoint stops working at once and its MCP sessions end.</p>,
      confirm: 'Delete bundle',
    });
    if (!ok) return;
    try {
      await call(api.DELETE('/api/v1/bundles/{bundle_id}', { params: { path: { bundle_id: b.id } } }));
      knownEndpoints.delete(b.id);
      location.route('/bundles');
    } catch (err) {
      setError(err);
    }
  };

  const removeTool = async (b: Bundle, t: BundleTool) => {
    setError(null);
    try {
      await call(api.DELETE('/api/v1/bundles/{bundle_id}/tools/{tool_id}', { params: { path: { bundle_id: b.id, tool_id: t.tool_id } } }));
      await bundle.reload();
    } catch (err) {
      setError(err);
    }
  };

  const reorder = async (b: Bundle, ordered: BundleTool[]) => {
    setError(null);
    // Show the new order at once; the server's answer (a reload) confirms it.
    bundle.set({ ...b, tools: ordered.map((t, i) => ({ ...t, display_order: i })) });
    try {
      await call(
        api.POST('/api/v1/bundles/{bundle_id}/reorder', {
          params: { path: { bundle_id: b.id } },
          body: { tool_orders: ordered.map((t, i) => [t.tool_id, i] as [string, number]) },
        }),
      );
    } catch (err) {
      setError(err);
    }
    await bundle.reload();
  };

  return (
    <Loaded state={bundle} feature="Bundles">
      {(b) => (
        <>
          <PageHeader
            title={b.name}
            intro={b.description ?? undefined}
            actions={
              isAdmin && (
                <>
                  <Button onClick={() => setEditing(true)}>Edit</Button>
                  <Button onClick={() => regenerate(b)}>Regenerate key</Button>
                  <Button variant="danger" onClick={() => remove(b)}>
                    Delete
                  </Button>
                </>
              )
            }
          />
          <p>
            <a href="/bundles">← All bundles</a>
            {b.agent_id && (
              <span class="muted">
                {' '}
                · agent <code>{b.agent_id}</code>
              </span>
            )}
          </p>
          {error !== null && <ErrorNotice error={error} />}
          <Section title="Connect a client">
            {endpoint ? (
              <div class="stack">
                <div class="copy-row">
                  <label class="sr-only" for="bundle-url">
                    Bundle endpoint URL
                  </label>
                  <input
                    id="bundle-url"
                    class="mono"
                    readOnly
                    value={endpoint}
                    onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
                  />
                  <CopyButton text={endpoint} label="Copy URL" />
                </div>
                <p class="notice warn small">
                  The URL contains the bundle key, which is the credential of this endpoint: share it like a password.
                </p>
                {clientSnippets(b.name, endpoint).map((s) => (
                  <div key={s.label} class="snippet">
                    <div class="snippet-head">
                      <span>{s.label}</span>
                      <CopyButton small text={s.text} label="Copy" />
                    </div>
                    <pre>
                      <code>{s.text}</code>
                    </pre>
                  </div>
                ))}
              </div>
            ) : isAdmin ? (
              <div class="stack">
                <p class="muted">The endpoint URL contains the bundle key, so it is shown only on request.</p>
                <div>
                  <Button variant="primary" busy={busy === 'reveal'} onClick={() => reveal(b)}>
                    Show endpoint URL
                  </Button>
                </div>
              </div>
            ) : (
              <p class="muted">Ask an administrator for this bundle's endpoint URL, or use your own gateway endpoint.</p>
            )}
          </Section>
          <Section
            title={`Tools (${b.tools.length})`}
            actions={
              isAdmin && (
                <Button variant="primary" onClick={() => setAdding(true)}>
                  Add tools
                </Button>
              )
            }
          >
            {b.tools.length === 0 ? (
              <Empty>No tools in this bundle yet.{isAdmin && ' Add some from the catalog.'}</Empty>
            ) : (
              <ToolList
                tools={b.tools}
                editable={isAdmin}
                onReorder={(ordered) => reorder(b, ordered)}
                onOverride={setOverriding}
                onRemove={(t) => removeTool(b, t)}
              />
            )}
          </Section>
          {isAdmin && <Sharing bundleId={b.id} />}
          {isAdmin && (
            <Section title="Guardrails">
              <BundleGuardrails bundleId={b.id} />
            </Section>
          )}
          <Dialog title={`Edit ${b.name}`} open={editing} onClose={() => setEditing(false)}>
            <BundleForm
              bundle={b}
              onCancel={() => setEditing(false)}
              onDone={(updated) => {
                setEditing(false);
                withKey(updated);
                void bundle.reload();
              }}
            />
          </Dialog>
          <Dialog title="Add tools from the catalog" open={adding} onClose={() => setAdding(false)} wide>
            {adding && (
              <AddTools
                bundle={b}
                onCancel={() => setAdding(false)}
                onDone={(updated) => {
                  setAdding(false);
                  bundle.set(updated);
                }}
              />
            )}
          </Dialog>
          <Dialog
            title={overriding ? `Override ${overriding.server_name} / ${overriding.name}` : ''}
            open={overriding !== null}
            onClose={() => setOverriding(null)}
            wide
          >
            {overriding && (
              <OverrideEditor
                bundleId={b.id}
                tool={overriding}
                onCancel={() => setOverriding(null)}
                onDone={() => {
                  setOverriding(null);
                  void bundle.reload();
                }}
              />
            )}
          </Dialog>
          {confirmNode}
        </>
      )}
    </Loaded>
  );
}

type ShareInput = Schema<'BundleShareInput'>;

/**
 * Who the bundle is shared with (admins): teams and users, each for `use` (served on their
 * gateway) or `view` (shown only). Edits are kept locally until saved, then replace the list.
 */
function Sharing(props: { bundleId: string }) {
  const shares = useAsync(
    () => call(api.GET('/api/v1/bundles/{bundle_id}/shares', { params: { path: { bundle_id: props.bundleId } } })),
    [props.bundleId],
  );
  const teams = useAsync(() => call(api.GET('/api/v1/teams', { params: { query: { page_size: 100 } } })), []);
  const users = useAsync(() => call(api.GET('/api/v1/users', { params: { query: { page_size: 100 } } })), []);
  const [grantee, setGrantee] = useState('');
  const [access, setAccess] = useState<'use' | 'view'>('use');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const save = async (next: ShareInput[]) => {
    setBusy(true);
    setError(null);
    try {
      shares.set(
        await call(
          api.PUT('/api/v1/bundles/{bundle_id}/shares', { params: { path: { bundle_id: props.bundleId } }, body: { shares: next } }),
        ),
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const current = (): ShareInput[] =>
    (shares.data?.items ?? []).map((s) => ({ principal_type: s.principal_type, principal_id: s.principal_id, access: s.access }));
  const options = [
    { value: '', label: 'Choose a team or user…' },
    ...(teams.data?.items ?? []).map((t) => ({ value: `team:${t.id}`, label: `Team: ${t.name}` })),
    ...(users.data?.items ?? [])
      .filter((u) => u.role === 'member')
      .map((u) => ({ value: `user:${u.id}`, label: `User: ${u.name || u.email}` })),
  ];

  return (
    <Section title="Sharing">
      <p class="muted small">
        Members see and use only the bundles they created and those shared with them or their teams. <strong>Use</strong> serves the bundle
        on their gateway; <strong>view</strong> only shows it. Admins reach every bundle.
      </p>
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={shares} feature="Sharing">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>Not shared with anyone.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Shares</caption>
                <thead>
                  <tr>
                    <th scope="col">With</th>
                    <th scope="col">Access</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((s) => (
                    <tr key={`${s.principal_type}:${s.principal_id}`}>
                      <th scope="row">
                        {s.principal_type === 'team' ? 'Team' : 'User'}: {s.name}
                      </th>
                      <td>
                        <Pill tone={s.access === 'use' ? 'ok' : 'neutral'}>{s.access}</Pill>
                      </td>
                      <td>
                        <Button
                          small
                          variant="ghost"
                          busy={busy}
                          aria-label={`Stop sharing with ${s.name}`}
                          onClick={() =>
                            void save(
                              current().filter((c) => !(c.principal_type === s.principal_type && c.principal_id === s.principal_id)),
                            )
                          }
                        >
                          Remove
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
      <div class="toolbar">
        <SelectField label="Share with" name="grantee" value={grantee} onValue={setGrantee} options={options} />
        <SelectField
          label="Access"
          name="access"
          value={access}
          onValue={setAccess}
          options={[
            { value: 'use', label: 'Use (on their gateway)' },
            { value: 'view', label: 'View only' },
          ]}
        />
        <Button
          variant="primary"
          busy={busy}
          disabled={!grantee}
          onClick={() => {
            const [type, id] = grantee.split(':') as ['team' | 'user', string];
            const others = current().filter((c) => !(c.principal_type === type && c.principal_id === id));
            void save([...others, { principal_type: type, principal_id: id, access }]).then(() => setGrantee(''));
          }}
        >
          Share
        </Button>
      </div>
    </Section>
  );
}

/**
 * The bundle's tools in display order. Rows can be dragged by their handle, or moved with the
 * keyboard (the handle is a button: Arrow Up / Arrow Down), or with the move buttons.
 */
function ToolList(props: {
  tools: BundleTool[];
  editable: boolean;
  onReorder: (ordered: BundleTool[]) => void;
  onOverride: (t: BundleTool) => void;
  onRemove: (t: BundleTool) => void;
}) {
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');

  const move = (from: number, to: number) => {
    if (to < 0 || to >= props.tools.length || from === to) return;
    const next = [...props.tools];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item!);
    setAnnounce(`${item!.effective.name} moved to position ${to + 1} of ${next.length}`);
    props.onReorder(next);
  };

  return (
    <>
      <p class="sr-only" aria-live="assertive">
        {announce}
      </p>
      {props.editable && (
        <p class="muted small">
          Drag a row by its handle, or focus the handle and press Arrow Up / Arrow Down, to change the order clients see.
        </p>
      )}
      <ol class="tool-list">
        {props.tools.map((t, i) => (
          <li
            key={t.tool_id}
            class={`tool-row${dragging === t.tool_id ? ' dragging' : ''}${over === t.tool_id && dragging !== t.tool_id ? ' drop-target' : ''}`}
            draggable={props.editable}
            data-tool-id={t.tool_id}
            onDragStart={(e) => {
              setDragging(t.tool_id);
              e.dataTransfer?.setData('text/plain', t.tool_id);
              if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
            }}
            onDragOver={(e) => {
              if (!dragging) return;
              e.preventDefault();
              setOver(t.tool_id);
            }}
            onDragLeave={() => setOver((o) => (o === t.tool_id ? null : o))}
            onDrop={(e) => {
              e.preventDefault();
              const from = props.tools.findIndex((x) => x.tool_id === dragging);
              setDragging(null);
              setOver(null);
              if (from >= 0) move(from, i);
            }}
            onDragEnd={() => {
              setDragging(null);
              setOver(null);
            }}
          >
            {props.editable && (
              <button
                type="button"
                class="handle"
                aria-label={`Reorder ${t.effective.name}, position ${i + 1} of ${props.tools.length}`}
                onKeyDown={(e) => {
                  if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
                  e.preventDefault();
                  move(i, e.key === 'ArrowUp' ? i - 1 : i + 1);
                }}
              >
                ⠿
              </button>
            )}
            <span class="pos">{i + 1}</span>
            <div class="tool-main">
              <div>
                <code class="tool-name">{t.effective.name}</code>
                {t.effective.name !== t.name && (
                  <span class="muted small">
                    {' '}
                    ← {t.server_name}/{t.name}
                  </span>
                )}
                {t.effective.name === t.name && <span class="muted small"> · {t.server_name}</span>}
              </div>
              {t.effective.description && <div class="muted small clamp">{t.effective.description}</div>}
            </div>
            <div class="tool-flags">
              {!t.enabled && <Pill tone="neutral">disabled</Pill>}
              {!t.available && <Pill tone="warn">unavailable</Pill>}
              {hasOverride(t.override) && <Pill tone="info">override</Pill>}
            </div>
            {props.editable && (
              <div class="row-actions">
                <Button small onClick={() => move(i, i - 1)} disabled={i === 0} aria-label={`Move ${t.effective.name} up`}>
                  ↑
                </Button>
                <Button
                  small
                  onClick={() => move(i, i + 1)}
                  disabled={i === props.tools.length - 1}
                  aria-label={`Move ${t.effective.name} down`}
                >
                  ↓
                </Button>
                <Button small onClick={() => props.onOverride(t)}>
                  Override
                </Button>
                <Button small variant="ghost" onClick={() => props.onRemove(t)} aria-label={`Remove ${t.effective.name} from the bundle`}>
                  Remove
                </Button>
              </div>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}

function hasOverride(o: Schema<'BundleToolOverride'>): boolean {
  return Object.entries(o).some(([k, v]) => (k === 'enabled' ? v === false : v !== null && v !== undefined));
}

/** The searchable catalog of every server's tools; the checked ones are added in one call. */
function AddTools(props: { bundle: Bundle; onDone: (b: Bundle) => void; onCancel: () => void }) {
  const [search, setSearch] = useState('');
  const [chosen, setChosen] = useState<Map<string, CatalogTool>>(new Map());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const q = useDebounced(search);
  const inBundle = useMemo(() => new Set(props.bundle.tools.map((t) => t.tool_id)), [props.bundle]);
  const catalog = useAsync(
    () => call(api.GET('/api/v1/tools', { params: { query: { page_size: 100, ...(q ? { search: q } : {}) } } })),
    [q],
  );

  const toggle = (t: CatalogTool, on: boolean) => {
    const next = new Map(chosen);
    if (on) next.set(t.id, t);
    else next.delete(t.id);
    setChosen(next);
  };

  const add = async () => {
    setBusy(true);
    setError(null);
    try {
      const updated = await call(
        api.POST('/api/v1/bundles/{bundle_id}/tools', {
          params: { path: { bundle_id: props.bundle.id } },
          body: { tools: [...chosen.keys()].map((tool_id) => ({ tool_id })) },
        }),
      );
      props.onDone(updated);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="stack">
      <TextField
        label="Search the catalog"
        name="catalog_search"
        type="search"
        value={search}
        onValue={setSearch}
        placeholder="Tool name or description"
        autoFocus
      />
      <Loaded state={catalog} feature="Tool catalog">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{q ? 'No tool matches.' : 'The catalog is empty: add a server first.'}</Empty>
          ) : (
            <div class="catalog-list" role="group" aria-label="Catalog tools">
              {data.items.map((t) => {
                const already = inBundle.has(t.id);
                return (
                  <label key={t.id} class={`catalog-item${already ? ' muted' : ''}`}>
                    <input
                      type="checkbox"
                      checked={already || chosen.has(t.id)}
                      disabled={already}
                      onChange={(e) => toggle(t, (e.currentTarget as HTMLInputElement).checked)}
                    />
                    <span>
                      <code>{t.name}</code> <span class="muted small">· {t.server_name}</span>
                      {already && <span class="muted small"> (in the bundle)</span>}
                      {!t.enabled && <span class="muted small"> (disabled on its server)</span>}
                      {t.description && <span class="muted small clamp block">{t.description}</span>}
                    </span>
                  </label>
                );
              })}
              {data.total > data.items.length && (
                <p class="muted small">
                  Showing {data.items.length} of {data.total}: search to narrow down.
                </p>
              )}
            </div>
          )
        }
      </Loaded>
      {error !== null && <ErrorNotice error={error} />}
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button variant="primary" busy={busy} disabled={chosen.size === 0} onClick={add}>
          Add {chosen.size || ''} tool{chosen.size === 1 ? '' : 's'}
        </Button>
      </div>
    </div>
  );
}

type Hint = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';
const HINTS: { key: Hint; label: string }[] = [
  { key: 'readOnlyHint', label: 'Read-only' },
  { key: 'destructiveHint', label: 'Destructive' },
  { key: 'idempotentHint', label: 'Idempotent' },
  { key: 'openWorldHint', label: 'Open world' },
];
type Tri = 'upstream' | 'true' | 'false';

const jsonText = (v: unknown) => (v && typeof v === 'object' && Object.keys(v).length ? JSON.stringify(v, null, 2) : '');

/**
 * Edits one tool's override with a live preview of the tool exactly as MCP clients will list it
 * (name, description, annotations and the published input schema with pinned and hidden
 * arguments removed). Saving replaces the whole override; API errors appear next to the field
 * their `loc` names.
 */
function OverrideEditor(props: { bundleId: string; tool: BundleTool; onDone: () => void; onCancel: () => void }) {
  const o = props.tool.override;
  const upstream = useAsync(async () => {
    const res = await call(
      api.GET('/api/v1/tools', { params: { query: { server_id: props.tool.server_id, search: props.tool.name, page_size: 100 } } }),
    );
    const found = res.items.find((t) => t.id === props.tool.tool_id);
    if (!found) throw new Error('The upstream tool is no longer in the catalog.');
    return found;
  }, [props.tool.tool_id]);

  const [enabled, setEnabled] = useState(o.enabled !== false);
  const [name, setName] = useState(o.name ?? '');
  const [title, setTitle] = useState(o.title ?? '');
  const [description, setDescription] = useState(o.description ?? '');
  const [hints, setHints] = useState<Record<Hint, Tri>>(() => {
    const a = (o.annotations ?? {}) as Record<string, unknown>;
    return Object.fromEntries(HINTS.map((h) => [h.key, typeof a[h.key] === 'boolean' ? String(a[h.key]) : 'upstream'])) as Record<
      Hint,
      Tri
    >;
  });
  const [defaults, setDefaults] = useState(jsonText(o.defaults));
  const [pinned, setPinned] = useState(jsonText(o.pinned));
  const [hidden, setHidden] = useState<string[]>(o.hidden_arguments ?? []);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  // The override as typed so far; JSON mistakes are reported per field and keep the last good preview.
  const draft = useMemo(() => {
    const local: Record<string, string> = {};
    const parse = (text: string, field: string, label: string) => {
      try {
        return parseJsonObject(text, label);
      } catch (err) {
        local[field] = (err as Error).message;
        return null;
      }
    };
    const setHints_ = HINTS.filter((h) => hints[h.key] !== 'upstream');
    const override: Schema<'BundleToolOverride'> = {
      name: name.trim() || null,
      title: title.trim() || null,
      description: description.trim() || null,
      annotations: setHints_.length ? Object.fromEntries(setHints_.map((h) => [h.key, hints[h.key] === 'true'])) : null,
      defaults: parse(defaults, 'defaults', 'Defaults'),
      pinned: parse(pinned, 'pinned', 'Pinned values'),
      hidden_arguments: hidden.length ? hidden : null,
      enabled,
    };
    return { override, local };
  }, [name, title, description, hints, defaults, pinned, hidden, enabled]);

  const save = async (e: Event) => {
    e.preventDefault();
    if (Object.keys(draft.local).length) {
      setErrors({ fields: draft.local, form: 'Please correct the highlighted fields.' });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      // Only what is set: absent means "the upstream value".
      const set = Object.fromEntries(Object.entries(draft.override).filter(([k, v]) => v !== null && k !== 'enabled'));
      const body: Schema<'BundleToolOverride'> = { ...set, enabled };
      await call(
        api.PUT('/api/v1/bundles/{bundle_id}/tools/{tool_id}/override', {
          params: { path: { bundle_id: props.bundleId, tool_id: props.tool.tool_id } },
          body,
        }),
      );
      props.onDone();
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) setErrors({ fields: { name: err.message }, form: null });
      else setErrors(formErrors(err, ['name', 'title', 'description', 'annotations', 'defaults', 'pinned', 'hidden_arguments', 'enabled']));
    } finally {
      setBusy(false);
    }
  };

  const f = { ...draft.local, ...errors.fields };
  const u = upstream.data;
  const properties = u ? Object.keys((u.input_schema.properties as Record<string, unknown> | undefined) ?? {}) : [];
  const required = new Set(u && Array.isArray(u.input_schema.required) ? (u.input_schema.required as string[]) : []);
  const pinnedKeys = new Set(Object.keys(draft.override.pinned ?? {}));

  return (
    <form class="override" onSubmit={save}>
      <div class="override-form stack">
        <Checkbox name="enabled" label="Offer this tool in the bundle" checked={enabled} onValue={setEnabled} error={f.enabled} />
        <TextField
          label="Name"
          name="name"
          value={name}
          onValue={setName}
          placeholder={props.tool.name}
          error={f.name}
          hint="Blank: the upstream name. Letters, digits, . _ -"
        />
        <TextField label="Title" name="title" value={title} onValue={setTitle} placeholder={u?.title ?? ''} error={f.title} />
        <TextArea
          label="Description"
          name="description"
          rows={4}
          value={description}
          onValue={setDescription}
          placeholder={u?.description ?? ''}
          error={f.description}
          hint="Blank: the upstream description."
        />
        <fieldset class={`group${f.annotations ? ' invalid' : ''}`}>
          <legend>Annotations</legend>
          <div class="hint-grid">
            {HINTS.map((h) => (
              <SelectField
                key={h.key}
                label={h.label}
                name={`annotations.${h.key}`}
                value={hints[h.key]}
                onValue={(v) => setHints({ ...hints, [h.key]: v })}
                options={[
                  { value: 'upstream', label: 'As upstream' },
                  { value: 'true', label: 'Yes' },
                  { value: 'false', label: 'No' },
                ]}
              />
            ))}
          </div>
          {f.annotations && <small class="field-error">{f.annotations}</small>}
        </fieldset>
        <TextArea
          label="Pinned values"
          name="pinned"
          rows={3}
          mono
          value={pinned}
          onValue={setPinned}
          error={f.pinned}
          placeholder='{"repo": "acme/widgets"}'
          hint="JSON object. Forced on every call and removed from the published schema."
        />
        <TextArea
          label="Defaults"
          name="defaults"
          rows={3}
          mono
          value={defaults}
          onValue={setDefaults}
          error={f.defaults}
          placeholder='{"limit": 10}'
          hint="JSON object. Used when the caller leaves an argument out."
        />
        {properties.length > 0 && (
          <CheckGroup
            legend="Hidden arguments"
            name="hidden_arguments"
            value={hidden}
            onValue={setHidden}
            error={f.hidden_arguments}
            options={properties
              .filter((p) => !pinnedKeys.has(p))
              .map((p) => ({
                value: p,
                label: <code>{p}</code>,
                hint: required.has(p) ? 'required upstream: pin it or give it a default' : undefined,
              }))}
          />
        )}
        <FormError message={errors.form} />
        <div class="form-actions">
          <Button onClick={props.onCancel}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy}>
            Save override
          </Button>
        </div>
      </div>
      <div class="override-preview">
        <h3 id="preview-title">Preview: as MCP clients see it</h3>
        {upstream.error ? (
          <ErrorNotice error={upstream.error} />
        ) : !u ? (
          <Loading />
        ) : (
          <>
            {!enabled && <p class="notice warn small">Not offered: the bundle's tools/list leaves this tool out.</p>}
            <pre class="preview" aria-labelledby="preview-title" tabIndex={0} data-testid="override-preview">
              <code>{JSON.stringify(effectiveWireTool(u, draft.override), null, 2)}</code>
            </pre>
          </>
        )}
      </div>
    </form>
  );
}
