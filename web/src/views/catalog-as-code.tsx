import { useState } from 'preact/hooks';
import { api, call, errorMessage, type Schema } from '../lib/api.js';
import { useAsync } from '../lib/hooks.js';
import { useIsAdmin } from '../lib/session.js';
import { RegistryBrowser } from './registry-browser.js';
import { Button, CopyButton, Empty, ErrorNotice, Loaded, PageHeader, Pill, Section, SelectField, TextArea } from '../ui/kit.js';

type Change = Schema<'ConfigImportResult'>['changes'][number];
type SecretMode = 'reference' | 'env';

const SECRET_MODES: { value: SecretMode; label: string }[] = [
  { value: 'reference', label: 'secret:// references to the values this installation holds' },
  { value: 'env', label: '${env:NAME} references the importing CLI reads' },
];

const SIGN: Record<Change['action'], string> = { create: '+', update: '~', remove: '-' };

/**
 * The private MCP registry (what IDEs see at /v0.1/servers) and configuration as code: export
 * the configuration as YAML, and preview (dry run) and apply a document.
 */
export function CatalogAsCodeView() {
  const isAdmin = useIsAdmin();
  return (
    <>
      <PageHeader
        title="Registry & configuration"
        intro="Your bundles as a private MCP registry, servers from other registries, and this installation's configuration as a YAML document you can keep in Git."
      />
      <RegistrySection />
      {isAdmin && <RegistryBrowser />}
      {isAdmin && <ExportSection />}
      {isAdmin && <ImportSection />}
    </>
  );
}

function RegistrySection() {
  const entries = useAsync(() => call(api.GET('/v0.1/servers', { params: { query: { limit: 100 } } })), []);
  const base = window.location.origin;
  return (
    <Section title="Private MCP registry">
      <p>
        Point an IDE or assistant that reads an MCP registry at <code>{base}</code> (Registry API v0.1, <code>GET {base}/v0.1/servers</code>
        , authenticated with an API key with the <code>api:read</code> scope). It lists the bundles you may use, each with its endpoint.
      </p>
      <p>
        <CopyButton text={base} label="Copy the registry URL" />
      </p>
      <Loaded state={entries} feature="The registry">
        {(list) =>
          list.servers.length === 0 ? (
            <Empty>No bundle is listed for you yet.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="sr-only">Registry entries</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Bundle</th>
                    <th scope="col">Version</th>
                    <th scope="col">Endpoint (OAuth or API key)</th>
                  </tr>
                </thead>
                <tbody>
                  {list.servers.map((e) => (
                    <tr key={e.server.name}>
                      <td>
                        <code>{e.server.name}</code>
                      </td>
                      <td>{e.server.title ?? e.server.name}</td>
                      <td>
                        <code>{e.server.version}</code>
                      </td>
                      <td>
                        <code>{e.server.remotes[0]?.url}</code> <CopyButton small text={e.server.remotes[0]?.url ?? ''} label="Copy" />
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

function ExportSection() {
  const [mode, setMode] = useState<SecretMode>('reference');
  const [document, setDocument] = useState<Schema<'ConfigExport'> | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setDocument(await call(api.GET('/api/v1/config/export', { params: { query: { secrets: mode } } })));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const download = () => {
    if (!document) return;
    const url = URL.createObjectURL(new Blob([document.document], { type: 'application/yaml' }));
    const a = window.document.createElement('a');
    a.href = url;
    a.download = 'toolgate.yaml';
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Section title="Export">
      <p>
        Settings, servers, tool selection and bundles with their overrides. Secrets are written as references, never as values. The same
        document comes from <code>npm run toolgate -- export</code>.
      </p>
      <div class="form-grid">
        <SelectField label="Secrets as" name="secrets" value={mode} onValue={setMode} options={SECRET_MODES} />
      </div>
      {error !== null && <ErrorNotice error={error} />}
      <div class="form-actions">
        <Button variant="primary" busy={busy} onClick={() => void run()}>
          Export
        </Button>
        {document && (
          <>
            <Button onClick={download}>Download toolgate.yaml</Button>
            <CopyButton text={document.document} label="Copy" />
          </>
        )}
      </div>
      {document && (
        <>
          <pre aria-label="Exported document" tabIndex={0}>
            {document.document}
          </pre>
          {document.secret_references.length > 0 && (
            <p class="muted small">
              {document.secret_references.length} secret reference(s): {document.secret_references.join(', ')}
            </p>
          )}
        </>
      )}
    </Section>
  );
}

function ImportSection() {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState<'preview' | 'apply' | null>(null);
  const [result, setResult] = useState<Schema<'ConfigImportResult'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (dryRun: boolean) => {
    setBusy(dryRun ? 'preview' : 'apply');
    setError(null);
    setResult(null);
    try {
      setResult(await call(api.POST('/api/v1/config/import', { body: { document: text, dry_run: dryRun } })));
    } catch (err) {
      setError(errorMessage(err) + issuesOf(err));
    } finally {
      setBusy(null);
    }
  };
  return (
    <Section title="Import">
      <p>
        Paste a document. Preview shows what would change without writing anything; Apply writes it in one transaction. Nothing the document
        does not name is deleted, and applying the same document twice changes nothing. <code>{'${env:…}'}</code> references are resolved
        only by <code>npm run toolgate -- import</code>.
      </p>
      <TextArea label="Document (YAML or JSON)" name="document" rows={12} mono value={text} onValue={setText} />
      {error && (
        <div class="notice error" role="alert">
          {error}
        </div>
      )}
      <div class="form-actions">
        <Button busy={busy === 'preview'} disabled={!text.trim() || busy !== null} onClick={() => void run(true)}>
          Preview changes
        </Button>
        <Button variant="primary" busy={busy === 'apply'} disabled={!text.trim() || busy !== null} onClick={() => void run(false)}>
          Apply
        </Button>
      </div>
      {result && (
        <div role="status">
          <p>
            {!result.changed ? (
              <Pill tone="ok">No changes</Pill>
            ) : result.dry_run ? (
              <Pill tone="warn">{result.changes.length} change(s) would be made</Pill>
            ) : (
              <Pill tone="ok">{result.changes.length} change(s) applied</Pill>
            )}
          </p>
          {result.changes.length > 0 && (
            <pre aria-label="Changes" tabIndex={0}>
              {result.changes
                .map((c) => `${SIGN[c.action]} ${c.kind} ${c.name}${c.fields.length ? ` (${c.fields.join(', ')})` : ''}`)
                .join('\n')}
            </pre>
          )}
        </div>
      )}
    </Section>
  );
}

/** The places a refused document names, one a line. */
function issuesOf(err: unknown): string {
  const issues = (err as { issues?: { loc: (string | number)[]; msg: string }[] }).issues ?? [];
  return issues.length > 1 ? `: ${issues.map((i) => `${i.loc.slice(2).join('.') || 'document'}: ${i.msg}`).join('; ')}` : '';
}
