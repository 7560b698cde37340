import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../lib/api.js';

/* ---------- page structure ---------- */

/** The page title (h1), focused after navigation so screen readers announce the new page. */
export function PageHeader(props: { title: string; intro?: ComponentChildren; actions?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Toolgate`;
    ref.current?.focus({ preventScroll: true });
  }, [props.title]);
  return (
    <header class="page-header">
      <div>
        <h1 tabIndex={-1} ref={ref}>
          {props.title}
        </h1>
        {props.intro && <p class="intro">{props.intro}</p>}
      </div>
      {props.actions && <div class="actions">{props.actions}</div>}
    </header>
  );
}

export function Section(props: { title: string; actions?: ComponentChildren; children: ComponentChildren; id?: string }) {
  const id = useId();
  return (
    <section class="card" aria-labelledby={id} id={props.id}>
      <div class="card-head">
        <h2 id={id}>{props.title}</h2>
        {props.actions && <div class="actions">{props.actions}</div>}
      </div>
      {props.children}
    </section>
  );
}

/* ---------- states ---------- */

export function Loading(props: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> {props.label ?? 'Loading…'}
    </p>
  );
}

/** The state of a view whose operation answers 501: the feature has not landed on this server. */
export function NotAvailable(props: { feature: string }) {
  return (
    <div class="notice info not-available" role="status">
      <strong>Not available yet: {props.feature}.</strong> This Toolgate server does not implement this feature in its current version (it
      answered 501 Not Implemented). This view works as soon as the server does.
    </div>
  );
}

export function ErrorNotice(props: { error: unknown; onRetry?: () => void }) {
  const err = props.error;
  const requestId = err instanceof ApiError ? err.requestId : null;
  return (
    <div class="notice error" role="alert">
      <span>{errorMessage(err)}</span>
      {requestId && <small class="muted"> (request {requestId})</small>}
      {props.onRetry && (
        <button type="button" class="link" onClick={props.onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/**
 * Renders the usual three states of loaded data: loading, an error (501 as "not available
 * yet"), or the content.
 */
export function Loaded<T>(props: {
  state: { data: T | undefined; error: unknown; loading: boolean; reload: () => void };
  feature: string;
  children: (data: T) => ComponentChildren;
}) {
  const { data, error, loading, reload } = props.state;
  if (error instanceof ApiError && error.notImplemented) return <NotAvailable feature={props.feature} />;
  if (error && data === undefined) return <ErrorNotice error={error} onRetry={reload} />;
  if (data === undefined) return loading ? <Loading /> : null;
  return (
    <>
      {error !== undefined && <ErrorNotice error={error} onRetry={reload} />}
      {props.children(data)}
    </>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

/* ---------- form controls ---------- */

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: ComponentChildren;
  required?: boolean;
}

function FieldFrame(props: FieldProps & { id: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <div class={`field${props.error ? ' invalid' : ''}${props.wide ? ' wide' : ''}`}>
      <label for={props.id}>
        {props.label}
        {props.required && (
          <span class="req" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {props.children}
      {props.hint && (
        <small class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </small>
      )}
      {props.error && (
        <small class="field-error" id={`${props.id}-error`}>
          {props.error}
        </small>
      )}
    </div>
  );
}

function describedBy(id: string, p: FieldProps): string | undefined {
  const ids = [p.hint ? `${id}-hint` : '', p.error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

/** The input attributes the console's text fields use. */
interface InputAttrs {
  type?: 'text' | 'search' | 'url' | 'email' | 'password' | 'number' | 'date';
  min?: number;
  max?: number;
  step?: string;
  maxLength?: number;
  placeholder?: string;
  autocomplete?: string;
  spellcheck?: boolean;
  disabled?: boolean;
  autoFocus?: boolean;
  readOnly?: boolean;
}

export function TextField(props: FieldProps & InputAttrs & { value: string; onValue: (v: string) => void; wide?: boolean; name: string }) {
  const { label, error, hint, value, onValue, wide, required, type, ...rest } = props;
  const id = `f-${useId()}`;
  return (
    <FieldFrame id={id} label={label} error={error} hint={hint} wide={wide} required={required}>
      <input
        id={id}
        // The DOM typings narrow `role` per input type; these fields never set a role.
        type={(type ?? 'text') as 'text'}
        {...rest}
        required={required}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, props)}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
      />
    </FieldFrame>
  );
}

export function TextArea(
  props: FieldProps & {
    value: string;
    onValue: (v: string) => void;
    rows?: number;
    name: string;
    placeholder?: string;
    mono?: boolean;
    disabled?: boolean;
  },
) {
  const id = `f-${useId()}`;
  return (
    <FieldFrame id={id} label={props.label} error={props.error} hint={props.hint} wide required={props.required}>
      <textarea
        id={id}
        name={props.name}
        rows={props.rows ?? 4}
        class={props.mono ? 'mono' : undefined}
        placeholder={props.placeholder}
        required={props.required}
        disabled={props.disabled}
        value={props.value}
        spellcheck={props.mono ? false : undefined}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy(id, props)}
        onInput={(e) => props.onValue((e.currentTarget as HTMLTextAreaElement).value)}
      />
    </FieldFrame>
  );
}

export function SelectField<V extends string>(
  props: FieldProps & { value: V; onValue: (v: V) => void; options: readonly (V | { value: V; label: string })[]; name: string },
) {
  const id = `f-${useId()}`;
  return (
    <FieldFrame id={id} label={props.label} error={props.error} hint={props.hint} required={props.required}>
      <select
        id={id}
        name={props.name}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy(id, props)}
        onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value as V)}
      >
        {props.options.map((o) => {
          const opt = typeof o === 'string' ? { value: o, label: o } : o;
          return (
            <option key={opt.value} value={opt.value}>
              {opt.label}
            </option>
          );
        })}
      </select>
    </FieldFrame>
  );
}

export function Checkbox(props: {
  label: ComponentChildren;
  checked: boolean;
  onValue: (v: boolean) => void;
  name: string;
  hint?: string;
  error?: string;
}) {
  const id = `f-${useId()}`;
  return (
    <div class={`check${props.error ? ' invalid' : ''}`}>
      <input
        type="checkbox"
        id={id}
        name={props.name}
        checked={props.checked}
        aria-describedby={props.hint || props.error ? `${id}-d` : undefined}
        onChange={(e) => props.onValue((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
      {(props.hint || props.error) && (
        <small id={`${id}-d`} class={props.error ? 'field-error' : 'hint'}>
          {props.error ?? props.hint}
        </small>
      )}
    </div>
  );
}

/** A group of checkboxes with one legend, one error (a 422 on the list) and one value: the checked options. */
export function CheckGroup<V extends string>(props: {
  legend: string;
  options: readonly { value: V; label: ComponentChildren; hint?: string }[];
  value: readonly V[];
  onValue: (v: V[]) => void;
  error?: string | undefined;
  name: string;
}) {
  const id = useId();
  return (
    <fieldset class={`group${props.error ? ' invalid' : ''}`} aria-describedby={props.error ? `${id}-e` : undefined}>
      <legend>{props.legend}</legend>
      {props.options.map((o) => (
        <Checkbox
          key={o.value}
          name={props.name}
          label={o.label}
          hint={o.hint}
          checked={props.value.includes(o.value)}
          onValue={(on) => props.onValue(on ? [...props.value, o.value] : props.value.filter((v) => v !== o.value))}
        />
      ))}
      {props.error && (
        <small class="field-error" id={`${id}-e`}>
          {props.error}
        </small>
      )}
    </fieldset>
  );
}

export function FormError(props: { message: string | null }) {
  if (!props.message) return null;
  return (
    <div class="notice error" role="alert">
      {props.message}
    </div>
  );
}

/* ---------- buttons and dialogs ---------- */

export function Button(
  props: ButtonHTMLAttributes<HTMLButtonElement> & {
    variant?: 'primary' | 'danger' | 'ghost' | 'default';
    busy?: boolean;
    small?: boolean;
  },
) {
  const { variant = 'default', busy, small, children, class: cls, disabled, type, ...rest } = props;
  return (
    <button
      type={(type as 'button' | 'submit') ?? 'button'}
      class={`btn ${variant}${small ? ' small' : ''}${cls ? ` ${cls}` : ''}`}
      disabled={disabled || busy}
      aria-busy={busy ? true : undefined}
      {...rest}
    >
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

/**
 * A modal dialog on the native `<dialog>` (focus moves in and is trapped, Escape closes, focus
 * returns to the opener when it closes).
 */
export function Dialog(props: { title: string; open: boolean; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class={`dialog${props.wide ? ' wide' : ''}`} aria-labelledby={id} onClose={props.onClose} onCancel={props.onClose}>
      {props.open && (
        <>
          <div class="dialog-head">
            <h2 id={id}>{props.title}</h2>
            <button type="button" class="icon-btn" aria-label="Close" onClick={props.onClose}>
              ×
            </button>
          </div>
          <div class="dialog-body">{props.children}</div>
        </>
      )}
    </dialog>
  );
}

/** A confirmation dialog for destructive actions: resolves true when confirmed. */
export function useConfirm(): [(opts: { title: string; body: ComponentChildren; confirm: string }) => Promise<boolean>, ComponentChildren] {
  const [state, setState] = useState<{ title: string; body: ComponentChildren; confirm: string; resolve: (v: boolean) => void } | null>(
    null,
  );
  const ask = (opts: { title: string; body: ComponentChildren; confirm: string }) =>
    new Promise<boolean>((resolve) => setState({ ...opts, resolve }));
  const close = (v: boolean) => {
    state?.resolve(v);
    setState(null);
  };
  const node = (
    <Dialog title={state?.title ?? ''} open={state !== null} onClose={() => close(false)}>
      <div class="confirm-body">{state?.body}</div>
      <div class="form-actions">
        <Button onClick={() => close(false)}>Cancel</Button>
        <Button variant="danger" onClick={() => close(true)}>
          {state?.confirm}
        </Button>
      </div>
    </Dialog>
  );
  return [ask, node];
}

/** Copies text to the clipboard and says so (visibly and to screen readers). */
export function CopyButton(props: { text: string; label?: string; small?: boolean }) {
  const [done, setDone] = useState<'ok' | 'fail' | null>(null);
  useEffect(() => {
    if (!done) return;
    const id = window.setTimeout(() => setDone(null), 2000);
    return () => window.clearTimeout(id);
  }, [done]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setDone('ok');
    } catch {
      setDone('fail');
    }
  };
  return (
    <button type="button" class={`btn ${props.small ? 'small' : ''}`} onClick={copy}>
      {done === 'ok' ? 'Copied' : done === 'fail' ? 'Copy failed: select the text' : (props.label ?? 'Copy')}
      <span class="sr-only" role="status">
        {done === 'ok' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A secret shown once (a new API key, an invitation link): selectable, copyable, with the warning. */
export function SecretOnce(props: { label: string; value: string; warning: string }) {
  const id = useId();
  return (
    <div class="secret-once">
      <label for={id}>{props.label}</label>
      <div class="copy-row">
        <input id={id} readOnly value={props.value} class="mono" onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <CopyButton text={props.value} />
      </div>
      <p class="notice warn">{props.warning}</p>
    </div>
  );
}

/* ---------- small display pieces ---------- */

export type Tone = 'ok' | 'warn' | 'bad' | 'neutral' | 'info';

export function Pill(props: { tone: Tone; children: ComponentChildren; title?: string }) {
  return (
    <span class={`pill ${props.tone}`} title={props.title}>
      {props.children}
    </span>
  );
}

export function Pager(props: { page: number; pageSize: number; total: number; onPage: (p: number) => void; label: string }) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <Button small disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </Button>
      <span aria-live="polite">
        Page {props.page} of {pages} ({props.total})
      </span>
      <Button small disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Next
      </Button>
    </nav>
  );
}

/** Tabs with the ARIA tab pattern (arrow keys move between tabs). */
export function Tabs<K extends string>(props: {
  label: string;
  tabs: readonly { key: K; label: string }[];
  value: K;
  onValue: (k: K) => void;
}) {
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKey = (e: KeyboardEvent, i: number) => {
    const n = props.tabs.length;
    const next =
      e.key === 'ArrowRight' ? (i + 1) % n : e.key === 'ArrowLeft' ? (i - 1 + n) % n : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    const tab = props.tabs[next]!;
    props.onValue(tab.key);
    refs.current[tab.key]?.focus();
  };
  return (
    <div role="tablist" aria-label={props.label} class="tabs">
      {props.tabs.map((t, i) => (
        <button
          key={t.key}
          ref={(el) => {
            refs.current[t.key] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${t.key}`}
          aria-selected={props.value === t.key}
          aria-controls={`panel-${t.key}`}
          tabIndex={props.value === t.key ? 0 : -1}
          onClick={() => props.onValue(t.key)}
          onKeyDown={(e) => onKey(e, i)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

export function TabPanel(props: { id: string; children: ComponentChildren }) {
  return (
    <div role="tabpanel" id={`panel-${props.id}`} aria-labelledby={`tab-${props.id}`} class="tabpanel">
      {props.children}
    </div>
  );
}

/* ---------- formatting ---------- */

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relFmt = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return dateFmt.format(new Date(iso));
}

/** "3 minutes ago", "in 2 days". */
export function relative(iso: string | null | undefined): string {
  if (!iso) return '—';
  const diff = (new Date(iso).getTime() - Date.now()) / 1000;
  const abs = Math.abs(diff);
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] =
    abs < 60 ? [diff, 'second'] : abs < 3600 ? [diff / 60, 'minute'] : abs < 86400 ? [diff / 3600, 'hour'] : [diff / 86400, 'day'];
  return relFmt.format(Math.round(value), unit);
}

export function Time(props: { iso: string | null | undefined; relative?: boolean }) {
  if (!props.iso) return <span class="muted">—</span>;
  return (
    <time dateTime={props.iso} title={formatDate(props.iso)}>
      {props.relative ? relative(props.iso) : formatDate(props.iso)}
    </time>
  );
}

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value * 10) / 10} ms`;
}
