import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync, useDebounced } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import { readEvents } from '../lib/sse.js';
import {
  Button,
  Checkbox,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  Loading,
  NotAvailable,
  PageHeader,
  Pager,
  Pill,
  SelectField,
  TabPanel,
  Tabs,
  TextArea,
  TextField,
  Time,
  useConfirm,
} from '../ui/kit.js';

type Tab = 'saved' | 'catalog' | 'generate';
type Skill = Schema<'Skill'>;

/** Agent Skills: the saved ones, external catalogs to import from, and streamed generation. */
export function SkillsView() {
  const isAdmin = useIsAdmin();
  const [tab, setTab] = useState<Tab>('saved');
  const [savedVersion, setSavedVersion] = useState(0);
  const tabs: { key: Tab; label: string }[] = [
    { key: 'saved', label: 'Saved skills' },
    { key: 'catalog', label: 'Catalogs' },
    ...(isAdmin ? [{ key: 'generate' as const, label: 'Generate' }] : []),
  ];
  const saved = () => {
    setSavedVersion(savedVersion + 1);
  };
  return (
    <>
      <PageHeader title="Skills" intro="Agent Skills (SKILL.md with files) to attach to servers. Attach one from a server's Skills tab." />
      <Tabs label="Skills" tabs={tabs} value={tab} onValue={setTab} />
      <TabPanel id={tab}>
        {tab === 'saved' && <SavedSkills version={savedVersion} />}
        {tab === 'catalog' && <CatalogBrowser onImported={saved} />}
        {tab === 'generate' && <Generate onSaved={saved} />}
      </TabPanel>
    </>
  );
}

function SavedSkills(props: { version: number }) {
  const isAdmin = useIsAdmin();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Skill | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();
  const q = useDebounced(search);
  const skills = useAsync(
    () => call(api.GET('/api/v1/skills', { params: { query: { page, page_size: 25, ...(q ? { search: q } : {}) } } })),
    [page, q, props.version],
  );

  const remove = async (s: Skill) => {
    const ok = await confirm({
      title: `Delete ${s.name}?`,
      body: <p>The skill is deleted and detached from every server; its script tools are removed.</p>,
      confirm: 'Delete skill',
    });
    if (!ok) return;
    setError(null);
    try {
      await call(api.DELETE('/api/v1/skills/{skill_id}', { params: { path: { skill_id: s.id } } }));
      setOpen(null);
      await skills.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <div class="toolbar">
        <TextField label="Search" name="skill_search" type="search" value={search} onValue={(v) => (setSearch(v), setPage(1))} />
      </div>
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={skills} feature="Skills">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No saved skills yet: import one from a catalog or generate one.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Skill</th>
                      <th scope="col">Source</th>
                      <th scope="col">Tags</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((s) => (
                      <tr key={s.id}>
                        <th scope="row">
                          <button type="button" class="link" onClick={() => setOpen(s)}>
                            {s.name}
                          </button>
                          <div class="muted small clamp">{s.description}</div>
                        </th>
                        <td>{s.source ?? <span class="muted">created here</span>}</td>
                        <td>{s.tags.join(', ') || <span class="muted">—</span>}</td>
                        <td>
                          <Time iso={s.updated_at} relative />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager label="Skills" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog title={open?.name ?? ''} open={open !== null} onClose={() => setOpen(null)} wide>
        {open && (
          <div class="stack">
            <p>{open.description}</p>
            {open.source_url && (
              <p class="muted small">
                From{' '}
                <a href={open.source_url} rel="noreferrer noopener" target="_blank">
                  {open.source}
                </a>
                {open.version && ` · version ${open.version}`}
              </p>
            )}
            <h3>SKILL.md</h3>
            <pre class="preview">
              <code>{open.content}</code>
            </pre>
            {open.files.length > 0 && (
              <>
                <h3>Files</h3>
                <ul>
                  {open.files.map((f) => (
                    <li key={f.path}>
                      <code>{f.path}</code> <span class="muted small">({f.content.length.toLocaleString()} characters)</span>
                    </li>
                  ))}
                </ul>
              </>
            )}
            {isAdmin && (
              <div class="form-actions">
                <Button variant="danger" onClick={() => remove(open)}>
                  Delete skill
                </Button>
              </div>
            )}
          </div>
        )}
      </Dialog>
      {confirmNode}
    </>
  );
}

function CatalogBrowser(props: { onImported: () => void }) {
  const isAdmin = useIsAdmin();
  const [source, setSource] = useState('anthropics/skills');
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState<{ source: string; search: string } | null>(null);
  const [importing, setImporting] = useState<string | null>(null);
  const [imported, setImported] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const listing = useAsync(async () => {
    if (!query) return null;
    return call(
      api.GET('/api/v1/skills/catalog/{source}', {
        params: { path: { source: query.source }, query: query.search ? { search: query.search } : {} },
      }),
    );
  }, [query?.source, query?.search]);

  const importSkill = async (name: string) => {
    if (!query) return;
    setImporting(name);
    setError(null);
    try {
      const skill = await call(api.POST('/api/v1/skills/import', { body: { source: query.source, name } }));
      setImported({ ...imported, [name]: skill.id });
      props.onImported();
    } catch (err) {
      setError(err);
    } finally {
      setImporting(null);
    }
  };

  return (
    <div class="stack">
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ source: source.trim(), search: search.trim() });
        }}
      >
        <TextField
          label="Catalog"
          name="source"
          value={source}
          onValue={setSource}
          required
          hint="A GitHub repository (owner/repo[/path]) or an https:// catalog index URL."
        />
        <TextField label="Search" name="catalog_search" type="search" value={search} onValue={setSearch} />
        <div class="row-actions">
          <Button type="submit" variant="primary">
            Browse
          </Button>
        </div>
      </form>
      {error !== null && <ErrorNotice error={error} />}
      {!query ? (
        <p class="muted">Choose a catalog and browse its skills.</p>
      ) : (
        <Loaded state={listing} feature="Skill catalogs">
          {(data) =>
            !data || data.items.length === 0 ? (
              <Empty>No skills found in {query.source}.</Empty>
            ) : (
              <ul class="cards">
                {data.items.map((s) => (
                  <li key={s.name} class="card">
                    <div class="card-head">
                      <h3>{s.name}</h3>
                      {s.version && <Pill tone="neutral">{s.version}</Pill>}
                    </div>
                    <p class="small">{s.description}</p>
                    <p class="muted small">
                      {[s.author && `by ${s.author}`, s.license, `${s.files.length} files`].filter(Boolean).join(' · ')}
                      {s.tags.length > 0 && ` · ${s.tags.join(', ')}`}
                    </p>
                    {isAdmin &&
                      (imported[s.name] ? (
                        <p class="notice ok small" role="status">
                          Imported.
                        </p>
                      ) : (
                        <Button small busy={importing === s.name} onClick={() => importSkill(s.name)}>
                          Import
                        </Button>
                      ))}
                  </li>
                ))}
              </ul>
            )
          }
        </Loaded>
      )}
    </div>
  );
}

interface Run {
  phase: string;
  message: string;
  percent: number;
  thinking: string;
  text: string;
  done: Schema<'SkillGenerationCompletionEvent'> | null;
  failed: string | null;
}
const NEW_RUN: Run = { phase: '', message: '', percent: 0, thinking: '', text: '', done: null, failed: null };

/** Generates a skill from an intent and shows the stream as it comes: progress, reasoning, SKILL.md text. */
function Generate(props: { onSaved: () => void }) {
  const providers = useAsync(() => call(api.GET('/api/v1/settings/providers')), []);
  const [intent, setIntent] = useState('');
  const [name, setName] = useState('');
  const [providerId, setProviderId] = useState('');
  const [save, setSave] = useState(true);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [run, setRun] = useState<Run | null>(null);
  const [streaming, setStreaming] = useState(false);
  const [unavailable, setUnavailable] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const output = useRef<HTMLPreElement>(null);
  useEffect(() => () => abort.current?.abort(), []);
  useEffect(() => {
    if (output.current) output.current.scrollTop = output.current.scrollHeight;
  }, [run?.text]);

  const llms = (providers.data?.items ?? []).filter((p) => p.provider_type === 'llm');

  const start = async (e: Event) => {
    e.preventDefault();
    setErrors(NO_ERRORS);
    const controller = new AbortController();
    abort.current = controller;
    setStreaming(true);
    let state: Run = { ...NEW_RUN };
    setRun(state);
    try {
      const body = await call(
        api.POST('/api/v1/skills/generate', {
          body: {
            intent: intent.trim(),
            save,
            ...(name.trim() ? { name: name.trim() } : {}),
            ...(providerId ? { provider_id: providerId } : {}),
          },
          parseAs: 'stream',
          signal: controller.signal,
          headers: { accept: 'text/event-stream' },
        }),
      );
      if (!body) throw new Error('The server sent no stream');
      for await (const ev of readEvents(body as ReadableStream<Uint8Array>, controller.signal)) {
        const data = JSON.parse(ev.data) as Record<string, unknown>;
        if (ev.event === 'progress')
          state = { ...state, phase: String(data.phase), message: String(data.message), percent: Number(data.percent) };
        else if (ev.event === 'thinking') state = { ...state, thinking: state.thinking + String(data.text) };
        else if (ev.event === 'token') state = { ...state, text: state.text + String(data.text) };
        else if (ev.event === 'completion') {
          state = {
            ...state,
            done: data as unknown as Schema<'SkillGenerationCompletionEvent'>,
            percent: 100,
            text: String(data.skill_md),
          };
          if (data.skill_id) props.onSaved();
        } else if (ev.event === 'error') state = { ...state, failed: String(data.detail) };
        setRun(state);
      }
      if (!state.done && !state.failed && !controller.signal.aborted)
        setRun({ ...state, failed: 'The stream ended before the skill was complete.' });
    } catch (err) {
      if (controller.signal.aborted) setRun({ ...state, failed: 'Cancelled: nothing was saved.' });
      else if (err instanceof ApiError && err.notImplemented) {
        setUnavailable(true);
        setRun(null);
      } else {
        setRun(null);
        setErrors(formErrors(err, ['intent', 'name', 'provider_id', 'save']));
      }
    } finally {
      setStreaming(false);
      abort.current = null;
    }
  };

  if (unavailable) return <NotAvailable feature="Skill generation" />;

  return (
    <div class="grid two">
      <form onSubmit={start} class="stack card">
        <TextArea
          label="What should the skill do?"
          name="intent"
          rows={6}
          value={intent}
          onValue={setIntent}
          required
          error={errors.fields.intent}
          placeholder="Review pull requests against our style guide and…"
        />
        <TextField
          label="Skill name"
          name="name"
          value={name}
          onValue={setName}
          error={errors.fields.name}
          hint="Lower-case, digits and -; blank: chosen by the model."
        />
        <SelectField
          label="Language model"
          name="provider_id"
          value={providerId}
          onValue={setProviderId}
          error={errors.fields.provider_id}
          options={[{ value: '', label: 'The active LLM provider' }, ...llms.map((p) => ({ value: p.id, label: p.display_name }))]}
        />
        <Checkbox name="save" label="Save the skill when it is done" checked={save} onValue={setSave} />
        <FormError message={errors.form} />
        <div class="form-actions">
          {streaming ? (
            <Button variant="danger" onClick={() => abort.current?.abort()}>
              Stop
            </Button>
          ) : (
            <Button type="submit" variant="primary" disabled={!intent.trim()}>
              Generate skill
            </Button>
          )}
        </div>
      </form>
      <section class="card stream" aria-label="Generation output">
        {!run ? (
          <p class="muted">The skill appears here as it is written.</p>
        ) : (
          <>
            <div class="progress-line" aria-live="polite">
              <progress max={100} value={run.percent} aria-label="Generation progress" />
              <span>
                {run.percent} %{run.phase && ` · ${run.phase}`}
              </span>
            </div>
            {run.message && <p class="small muted">{run.message}</p>}
            {streaming && !run.text && <Loading label="Thinking…" />}
            {run.thinking && (
              <details>
                <summary>Reasoning</summary>
                <p class="small thinking">{run.thinking}</p>
              </details>
            )}
            {run.text && (
              <pre class="preview" ref={output} aria-label="Generated SKILL.md" tabIndex={0}>
                <code>{run.text}</code>
              </pre>
            )}
            {run.failed && (
              <p class="notice error" role="alert">
                {run.failed}
              </p>
            )}
            {run.done && (
              <p class="notice ok" role="status">
                {run.done.skill_id ? `Saved as ${run.done.name}.` : `Generated ${run.done.name} (not saved).`}
                {run.done.files.length > 0 && ` ${run.done.files.length} files.`}
              </p>
            )}
          </>
        )}
      </section>
    </div>
  );
}
