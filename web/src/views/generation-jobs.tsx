import { counted } from '../lib/text.js';
import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ApiError, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, type FormErrors } from '../lib/forms.js';
import { useAsync, useInterval } from '../lib/hooks.js';
import {
  Button,
  Checkbox,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  PageHeader,
  Pager,
  Pill,
  Section,
  SelectField,
  TextArea,
  TextField,
  Time,
  type Tone,
} from '../ui/kit.js';

type Job = Schema<'GenerationJob'>;
type Status = Schema<'GenerationJobStatus'>;
const PHASES: Schema<'GenerationPhase'>[] = ['analysis', 'design', 'implementation', 'validation', 'deployment'];
const RUNNING = new Set<Status>(['pending', 'running']);

export function jobTone(status: Status): Tone {
  return status === 'completed' ? 'ok' : status === 'failed' ? 'bad' : status === 'cancelled' ? 'neutral' : 'info';
}

/** AI generation of MCP servers: the jobs, with live progress, and a form to start one. */
export function GenerationJobsView() {
  const location = useLocation();
  const [status, setStatus] = useState<'' | Status>('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const jobs = useAsync(
    () => call(api.GET('/api/v1/servers/generate', { params: { query: { page, page_size: 20, ...(status ? { status } : {}) } } })),
    [page, status],
  );
  useInterval(() => void jobs.reload(), 3000, !!jobs.data?.items.some((j) => RUNNING.has(j.status)));
  const unavailable = jobs.error instanceof ApiError && jobs.error.notImplemented;

  return (
    <>
      <PageHeader
        title="Server generation"
        intro="Describe a server; an AI agent designs, implements, validates and (optionally) deploys it as a new upstream."
        actions={
          !unavailable && (
            <Button variant="primary" onClick={() => setCreating(true)}>
              Generate a server
            </Button>
          )
        }
      />
      {!unavailable && (
        <div class="toolbar">
          <SelectField
            label="Status"
            name="status"
            value={status}
            onValue={(v) => (setStatus(v), setPage(1))}
            options={[
              { value: '', label: 'Any status' },
              ...(['pending', 'running', 'completed', 'failed', 'cancelled'] as const).map((s) => ({ value: s, label: s })),
            ]}
          />
        </div>
      )}
      <Loaded state={jobs} feature="Server generation">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>
              No generation jobs{status ? ` ${status}` : ''}.
              {!status &&
                ' Generating a server needs an LLM provider: add one under Settings → AI providers, then describe the server you want.'}
            </Empty>
          ) : (
            <>
              <ul class="job-list">
                {data.items.map((j) => (
                  <li key={j.job_id} class="card job">
                    <div class="card-head">
                      <h2>
                        <a href={`/generation/${j.job_id}`}>{j.server_name ?? 'Unnamed server'}</a>
                      </h2>
                      <Pill tone={jobTone(j.status)}>{j.status}</Pill>
                    </div>
                    <Progress job={j} />
                    <p class="muted small">
                      Started <Time iso={j.created_at} relative />
                      {j.completed_at && (
                        <>
                          {' '}
                          · finished <Time iso={j.completed_at} relative />
                        </>
                      )}
                    </p>
                  </li>
                ))}
              </ul>
              <Pager label="Jobs" page={data.page} pageSize={data.page_size} total={data.total} onPage={setPage} />
            </>
          )
        }
      </Loaded>
      <Dialog title="Generate an MCP server" open={creating} onClose={() => setCreating(false)} wide>
        {creating && <CreateJobForm onCancel={() => setCreating(false)} onDone={(j) => location.route(`/generation/${j.job_id}`)} />}
      </Dialog>
    </>
  );
}

function Progress(props: { job: Job }) {
  const j = props.job;
  const phaseIndex = PHASES.indexOf(j.current_phase);
  return (
    <div class="progress-block">
      <div class="progress-line">
        <progress max={100} value={j.progress_percent} aria-label={`Progress of ${j.server_name ?? 'the job'}`} />
        <span>{j.progress_percent} %</span>
      </div>
      <ol class="phases" aria-label="Phases">
        {PHASES.map((p, i) => (
          <li
            key={p}
            class={i < phaseIndex || j.status === 'completed' ? 'done' : i === phaseIndex ? 'current' : ''}
            aria-current={i === phaseIndex && RUNNING.has(j.status) ? 'step' : undefined}
          >
            {p}
          </li>
        ))}
      </ol>
      <p class="small">
        {j.progress_message ?? ''}
        {j.tools_total > 0 && (
          <span class="muted">
            {' '}
            · tools {j.tools_completed} / {j.tools_total}
          </span>
        )}
      </p>
      {j.error_message && (
        <p class="notice error" role="alert">
          {j.error_message}
        </p>
      )}
    </div>
  );
}

/** One job: live progress (polled while it runs) and the agents' reasoning log. */
export function GenerationJobView() {
  const { params } = useRoute();
  const id = params.id!;
  const job = useAsync(() => call(api.GET('/api/v1/servers/generate/{job_id}', { params: { path: { job_id: id } } })), [id]);
  const [error, setError] = useState<unknown>(null);
  const [cancelling, setCancelling] = useState(false);
  useInterval(() => void job.reload(), 1500, !!job.data && RUNNING.has(job.data.status));

  const cancel = async () => {
    setCancelling(true);
    setError(null);
    try {
      job.set(await call(api.POST('/api/v1/servers/generate/{job_id}/cancel', { params: { path: { job_id: id } } })));
    } catch (err) {
      setError(err);
    } finally {
      setCancelling(false);
    }
  };

  return (
    <Loaded state={job} feature="Server generation">
      {(j) => (
        <>
          <PageHeader
            title={j.server_name ?? 'Generation job'}
            actions={
              RUNNING.has(j.status) && (
                <Button variant="danger" busy={cancelling} onClick={cancel}>
                  Cancel job
                </Button>
              )
            }
          />
          <p>
            <a href="/generation">← All jobs</a>
          </p>
          {error !== null && <ErrorNotice error={error} />}
          <Section title="Progress" actions={<Pill tone={jobTone(j.status)}>{j.status}</Pill>}>
            <div aria-live="polite">
              <Progress job={j} />
            </div>
            {j.deployed_server && (
              <p class="notice ok">
                Deployed as <a href={`/servers/${j.deployed_server.server_id}`}>{j.deployed_server.server_name}</a> with{' '}
                {counted(j.deployed_server.tool_count, 'tool')}.
              </p>
            )}
          </Section>
          <Section title={`Reasoning log (${j.reasoning_log.length})`}>
            {j.reasoning_log.length === 0 ? (
              <Empty>Nothing logged yet.</Empty>
            ) : (
              <ol class="log">
                {j.reasoning_log.map((r, i) => (
                  <li key={i}>
                    <div class="log-head">
                      <Time iso={r.timestamp} /> <Pill tone="info">{r.phase}</Pill> <strong>{r.agent}</strong>
                    </div>
                    <p>{r.message}</p>
                    {Object.keys(r.details).length > 0 && (
                      <details>
                        <summary>Details</summary>
                        <pre>
                          <code>{JSON.stringify(r.details, null, 2)}</code>
                        </pre>
                      </details>
                    )}
                  </li>
                ))}
              </ol>
            )}
          </Section>
        </>
      )}
    </Loaded>
  );
}

function CreateJobForm(props: { onDone: (j: Job) => void; onCancel: () => void }) {
  const providers = useAsync(() => call(api.GET('/api/v1/settings/providers')), []);
  const [description, setDescription] = useState('');
  const [serverName, setServerName] = useState('');
  const [providerId, setProviderId] = useState('');
  const [deploy, setDeploy] = useState(true);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const llms = (providers.data?.items ?? []).filter((p) => p.provider_type === 'llm');

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const job = await call(
        api.POST('/api/v1/servers/generate', {
          body: {
            description: description.trim(),
            auto_deploy: deploy,
            ...(serverName.trim() ? { server_name: serverName.trim() } : {}),
            ...(providerId ? { provider_id: providerId } : {}),
          },
        }),
      );
      props.onDone(job);
    } catch (err) {
      setErrors(formErrors(err, ['description', 'server_name', 'provider_id', 'auto_deploy']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack">
      <TextArea
        label="What should the server do?"
        name="description"
        rows={6}
        value={description}
        onValue={setDescription}
        required
        error={errors.fields.description}
        placeholder="Tools to look up orders and refunds in our shop's PostgreSQL database…"
      />
      <TextField
        label="Server name"
        name="server_name"
        value={serverName}
        onValue={setServerName}
        error={errors.fields.server_name}
        hint="Blank: chosen during design."
      />
      <SelectField
        label="Language model"
        name="provider_id"
        value={providerId}
        onValue={setProviderId}
        error={errors.fields.provider_id}
        options={[
          { value: '', label: 'The active LLM provider' },
          ...llms.map((p) => ({ value: p.id, label: `${p.display_name}${p.is_active ? ' (active)' : ''}` })),
        ]}
      />
      <Checkbox name="auto_deploy" label="Register and connect the server when it succeeds" checked={deploy} onValue={setDeploy} />
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          Start generation
        </Button>
      </div>
    </form>
  );
}
