import { useState } from 'preact/hooks';
import { api, call, type Schema } from '../lib/api.js';
import { formErrors, NO_ERRORS, parseJsonObject, type FormErrors } from '../lib/forms.js';
import { useAsync } from '../lib/hooks.js';
import {
  Button,
  Checkbox,
  Dialog,
  Empty,
  ErrorNotice,
  FormError,
  Loaded,
  PageHeader,
  Pill,
  Section,
  SelectField,
  TextArea,
  TextField,
  useConfirm,
} from '../ui/kit.js';

type Rule = Schema<'PolicyRule'>;
type RuleInput = Schema<'PolicyRuleCreate'>;
type Evaluation = Schema<'PolicyEvaluationResult'>;

/** Names for ids: servers, bundles, teams and users, for showing and choosing. */
function useDirectory() {
  const servers = useAsync(() => call(api.GET('/api/v1/servers', { params: { query: { page_size: 100 } } })), []);
  const bundles = useAsync(() => call(api.GET('/api/v1/bundles', { params: { query: { page_size: 100 } } })), []);
  const teams = useAsync(() => call(api.GET('/api/v1/teams', { params: { query: { page_size: 100 } } })), []);
  const users = useAsync(() => call(api.GET('/api/v1/users', { params: { query: { page_size: 100 } } })), []);
  const name = new Map<string, string>();
  for (const s of servers.data?.items ?? []) name.set(s.id, s.name);
  for (const b of bundles.data?.items ?? []) name.set(b.id, b.name);
  for (const t of teams.data?.items ?? []) name.set(t.id, t.name);
  for (const u of users.data?.items ?? []) name.set(u.id, u.name || u.email);
  return {
    name: (id: string) => name.get(id) ?? id.slice(0, 8),
    servers: (servers.data?.items ?? []).map((s) => ({ value: s.id, label: s.name })),
    bundles: (bundles.data?.items ?? []).map((b) => ({ value: b.id, label: b.name })),
    teams: (teams.data?.items ?? []).map((t) => ({ value: t.id, label: t.name })),
    users: (users.data?.items ?? []).map((u) => ({ value: u.id, label: u.name || u.email })),
  };
}
type Directory = ReturnType<typeof useDirectory>;

/**
 * Tool policy (admins): the rules in decision order, each editable, and a box that tests a call
 * (or a draft rule) without making it.
 */
export function PoliciesView() {
  const rules = useAsync(() => call(api.GET('/api/v1/policies')), []);
  const dir = useDirectory();
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, confirmNode] = useConfirm();

  const remove = async (r: Rule) => {
    if (
      !(await confirm({
        title: `Delete rule ${r.name}?`,
        body: 'It stops applying at once on every gateway instance.',
        confirm: 'Delete rule',
      }))
    )
      return;
    try {
      await call(api.DELETE('/api/v1/policies/{rule_id}', { params: { path: { rule_id: r.id } } }));
      await rules.reload();
    } catch (err) {
      setError(err);
    }
  };
  const list = (ids: readonly string[], any: string) => (ids.length ? ids.map(dir.name).join(', ') : <span class="muted">{any}</span>);

  return (
    <>
      <PageHeader
        title="Tool policy"
        intro="Rules that allow or deny tools, read in priority order: the first rule that applies decides, and a tool no rule applies to is allowed. A denied tool disappears from tools/list and search; a call of it gets an error naming the rule."
        actions={
          <Button variant="primary" onClick={() => setEditing('new')}>
            New rule
          </Button>
        }
      />
      {error !== null && <ErrorNotice error={error} />}
      <Loaded state={rules} feature="Tool policy">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>No rules: every tool of a bundle is allowed to whoever may use the bundle.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Rules in decision order</caption>
                <thead>
                  <tr>
                    <th scope="col" class="num">
                      Priority
                    </th>
                    <th scope="col">Rule</th>
                    <th scope="col">Effect</th>
                    <th scope="col">Tools</th>
                    <th scope="col">Servers / bundles</th>
                    <th scope="col">Who</th>
                    <th scope="col">Condition</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((r) => (
                    <tr key={r.id} class={r.enabled ? undefined : 'muted'}>
                      <td class="num">{r.priority}</td>
                      <th scope="row">
                        {r.name}
                        {!r.enabled && <Pill tone="neutral">disabled</Pill>}
                        {r.description && <div class="muted small clamp">{r.description}</div>}
                      </th>
                      <td>
                        <Pill tone={r.effect === 'deny' ? 'bad' : 'ok'}>{r.effect}</Pill>
                      </td>
                      <td>{r.tools.length ? r.tools.map((t) => <code key={t}>{t} </code>) : <span class="muted">any</span>}</td>
                      <td>
                        {list(r.servers, 'any server')} / {list(r.bundles, 'any bundle')}
                      </td>
                      <td>
                        {r.teams.length || r.users.length ? (
                          [...r.teams, ...r.users].map(dir.name).join(', ')
                        ) : (
                          <span class="muted">everyone</span>
                        )}
                      </td>
                      <td>{r.condition ? <code class="small">{r.condition}</code> : <span class="muted">—</span>}</td>
                      <td>
                        <Button small variant="ghost" onClick={() => setEditing(r)} aria-label={`Edit ${r.name}`}>
                          Edit
                        </Button>
                        <Button small variant="ghost" onClick={() => void remove(r)} aria-label={`Delete ${r.name}`}>
                          Delete
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
      <Section title="Test the policy">
        <TestBox dir={dir} />
      </Section>
      <Dialog
        title={editing === 'new' ? 'New rule' : `Edit ${editing?.name ?? ''}`}
        open={editing !== null}
        onClose={() => setEditing(null)}
        wide
      >
        {editing !== null && (
          <RuleForm
            rule={editing === 'new' ? undefined : editing}
            dir={dir}
            onCancel={() => setEditing(null)}
            onDone={() => {
              setEditing(null);
              void rules.reload();
            }}
          />
        )}
      </Dialog>
      {confirmNode}
    </>
  );
}

/** A multi-select of ids by name (a native `<select multiple>`, labelled). */
function MultiSelect(props: {
  label: string;
  name: string;
  value: string[];
  onValue: (v: string[]) => void;
  options: { value: string; label: string }[];
  hint: string;
}) {
  const id = `ms-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        multiple
        size={Math.min(5, Math.max(2, props.options.length))}
        onChange={(e) => props.onValue([...(e.currentTarget as HTMLSelectElement).selectedOptions].map((o) => o.value))}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value} selected={props.value.includes(o.value)}>
            {o.label}
          </option>
        ))}
      </select>
      <div class="hint small muted">{props.hint}</div>
    </div>
  );
}

/** The fields of a rule, as the form edits them. */
function useRuleFields(rule?: Rule) {
  const [name, setName] = useState(rule?.name ?? '');
  const [description, setDescription] = useState(rule?.description ?? '');
  const [effect, setEffect] = useState<'allow' | 'deny'>(rule?.effect ?? 'deny');
  const [priority, setPriority] = useState(String(rule?.priority ?? 1000));
  const [enabled, setEnabled] = useState(rule?.enabled ?? true);
  const [tools, setTools] = useState((rule?.tools ?? []).join(', '));
  const [servers, setServers] = useState<string[]>([...(rule?.servers ?? [])]);
  const [bundles, setBundles] = useState<string[]>([...(rule?.bundles ?? [])]);
  const [teams, setTeams] = useState<string[]>([...(rule?.teams ?? [])]);
  const [users, setUsers] = useState<string[]>([...(rule?.users ?? [])]);
  const [condition, setCondition] = useState(rule?.condition ?? '');
  const body = (): RuleInput => ({
    name: name.trim(),
    description: description.trim() || null,
    effect,
    priority: Number(priority),
    enabled,
    tools: tools
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    servers,
    bundles,
    teams,
    users,
    condition: condition.trim() || null,
  });
  return {
    body,
    name,
    setName,
    description,
    setDescription,
    effect,
    setEffect,
    priority,
    setPriority,
    enabled,
    setEnabled,
    tools,
    setTools,
    servers,
    setServers,
    bundles,
    setBundles,
    teams,
    setTeams,
    users,
    setUsers,
    condition,
    setCondition,
  };
}

/** Creates or changes a rule, with a "test this rule" box for the draft. */
function RuleForm(props: { rule?: Rule; dir: Directory; onDone: () => void; onCancel: () => void }) {
  const f = useRuleFields(props.rule);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors(NO_ERRORS);
    setBusy(true);
    try {
      const body = f.body();
      if (props.rule) await call(api.PATCH('/api/v1/policies/{rule_id}', { params: { path: { rule_id: props.rule.id } }, body }));
      else await call(api.POST('/api/v1/policies', { body }));
      props.onDone();
    } catch (err) {
      setErrors(
        formErrors(err, ['name', 'description', 'effect', 'priority', 'tools', 'servers', 'bundles', 'teams', 'users', 'condition']),
      );
    } finally {
      setBusy(false);
    }
  };
  const { dir } = props;
  return (
    <form onSubmit={submit} class="stack">
      <TextField label="Name" name="name" value={f.name} onValue={f.setName} required maxLength={100} error={errors.fields.name} />
      <TextArea
        label="Description"
        name="description"
        rows={2}
        value={f.description}
        onValue={f.setDescription}
        error={errors.fields.description}
      />
      <SelectField
        label="Effect"
        name="effect"
        value={f.effect}
        onValue={f.setEffect}
        options={[
          { value: 'deny', label: 'Deny' },
          { value: 'allow', label: 'Allow' },
        ]}
      />
      <TextField
        label="Priority"
        name="priority"
        type="number"
        min={0}
        max={1000000}
        value={f.priority}
        onValue={f.setPriority}
        error={errors.fields.priority}
        hint="Lower first; the first rule that applies decides."
      />
      <Checkbox label="Enabled" name="enabled" checked={f.enabled} onValue={f.setEnabled} />
      <TextField
        label="Tools"
        name="tools"
        value={f.tools}
        onValue={f.setTools}
        error={errors.fields.tools}
        hint="Upstream tool names or patterns, comma-separated (* any characters, ? one); empty for any tool."
      />
      <MultiSelect
        label="Servers"
        name="servers"
        value={f.servers}
        onValue={f.setServers}
        options={dir.servers}
        hint="None selected: any server."
      />
      <MultiSelect
        label="Bundles"
        name="bundles"
        value={f.bundles}
        onValue={f.setBundles}
        options={dir.bundles}
        hint="None selected: any bundle."
      />
      <MultiSelect
        label="Teams"
        name="teams"
        value={f.teams}
        onValue={f.setTeams}
        options={dir.teams}
        hint="With no team and no user: everyone, bundle-key callers too."
      />
      <MultiSelect
        label="Users"
        name="users"
        value={f.users}
        onValue={f.setUsers}
        options={dir.users}
        hint="Users the rule applies to besides the teams' members."
      />
      <TextArea
        label="Condition (CEL)"
        name="condition"
        rows={2}
        mono
        value={f.condition}
        onValue={f.setCondition}
        error={errors.fields.condition}
        hint='Optional. The rule applies only when true. Variables: args, tool, server_id, bundle_id, user_id. Example: has(args.path) && args.path.startsWith("/etc")'
      />
      <details>
        <summary>Test this rule</summary>
        <TestBox dir={dir} draft={f.body} />
      </details>
      <FormError message={errors.form} />
      <div class="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={busy}>
          {props.rule ? 'Save' : 'Create rule'}
        </Button>
      </div>
    </form>
  );
}

/** Decides a call without making it: with the saved rules, or (`draft`) with one rule alone. */
function TestBox(props: { dir: Directory; draft?: () => RuleInput }) {
  const [serverId, setServerId] = useState('');
  const [toolName, setToolName] = useState('');
  const [bundleId, setBundleId] = useState('');
  const [userId, setUserId] = useState('');
  const [args, setArgs] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [result, setResult] = useState<Evaluation | null>(null);
  const server = serverId || props.dir.servers[0]?.value || '';

  const test = async () => {
    setErrors(NO_ERRORS);
    setResult(null);
    let parsed: Record<string, unknown> | null;
    try {
      parsed = parseJsonObject(args, 'Arguments');
    } catch (err) {
      setErrors({ fields: { arguments: (err as Error).message }, form: null });
      return;
    }
    setBusy(true);
    try {
      const body = {
        server_id: server,
        tool_name: toolName.trim(),
        bundle_id: bundleId || null,
        user_id: userId || null,
        arguments: parsed,
        ...(props.draft ? { rule: props.draft() } : {}),
      };
      setResult(await call(api.POST('/api/v1/policies/evaluate', { body })));
    } catch (err) {
      setErrors(formErrors(err, ['server_id', 'tool_name', 'arguments']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="stack">
      <div class="toolbar">
        <SelectField
          label="Server"
          name="test_server"
          value={server}
          onValue={setServerId}
          options={props.dir.servers.length ? props.dir.servers : [{ value: '', label: 'No servers' }]}
        />
        <TextField label="Tool (upstream name)" name="test_tool" value={toolName} onValue={setToolName} error={errors.fields.tool_name} />
        <SelectField
          label="Through bundle"
          name="test_bundle"
          value={bundleId}
          onValue={setBundleId}
          options={[{ value: '', label: 'Any / none' }, ...props.dir.bundles]}
        />
        <SelectField
          label="Caller"
          name="test_user"
          value={userId}
          onValue={setUserId}
          options={[{ value: '', label: 'A bundle-key caller' }, ...props.dir.users]}
        />
      </div>
      <TextArea
        label="Arguments (JSON object)"
        name="test_arguments"
        rows={2}
        mono
        value={args}
        onValue={setArgs}
        error={errors.fields.arguments}
        hint="Empty: the listing decision (is the tool shown?)."
      />
      <FormError message={errors.form} />
      <div>
        <Button busy={busy} disabled={!server || !toolName.trim()} onClick={() => void test()}>
          {props.draft ? 'Test this rule' : 'Test'}
        </Button>
      </div>
      {result && (
        <p role="status" class={`notice ${result.allowed ? 'ok' : 'error'}`}>
          {result.allowed ? 'Allowed' : 'Denied'}
          {result.rule
            ? ` by rule "${result.rule.name}"`
            : props.draft
              ? result.applies
                ? ''
                : ': the rule does not apply'
              : ': no rule applies'}
          {result.conditional && ' (a condition decides each call by its arguments)'}
        </p>
      )}
    </div>
  );
}
