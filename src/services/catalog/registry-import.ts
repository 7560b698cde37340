/**
 * Adding servers from an MCP registry (Registry API v0.1): browse its entries and register one.
 * A remote becomes a Streamable HTTP or SSE server; an npm package a stdio server on `npx`, a PyPI
 * package one on `uvx`. The inputs the registry declares (URL variables, headers, environment
 * variables, arguments) are filled from the admin's values; secret ones are sealed with the
 * server. The registry is fetched under the outbound-address policy, bounded in size and time,
 * and its listings are cached for a few minutes.
 */
import { BadGatewayError, NotFoundError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import { OutboundRefusedError } from '../../lib/outbound-policy.js';
import { ADMIN_VIEW, type ServersService, type ServerView } from './servers-service.js';

type Schemas = components['schemas'];
type ImportOption = Schemas['RegistryImportOption'];
type Input = ImportOption['inputs'][number];

/** The official registry, browsed when the general setting `registry_url` is unset. */
export const OFFICIAL_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

const MAX_BYTES = 4 * 1024 * 1024;
const TIMEOUT_MS = 10_000;
const CACHE_MS = 5 * 60_000;
const CACHE_ENTRIES = 100;

/** The parts of `server.json` an import reads (the registry's own document; anything may be missing). */
interface KeyValue {
  name?: string;
  value?: string;
  default?: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
}
interface Argument extends KeyValue {
  type?: 'positional' | 'named';
  valueHint?: string;
}
interface Remote {
  type?: string;
  url?: string;
  headers?: KeyValue[];
  variables?: Record<string, KeyValue>;
}
interface Package {
  registryType?: string;
  identifier?: string;
  version?: string;
  runtimeHint?: string;
  transport?: { type?: string };
  runtimeArguments?: Argument[];
  packageArguments?: Argument[];
  environmentVariables?: KeyValue[];
}
interface ServerJson {
  name?: string;
  description?: string;
  version?: string;
  remotes?: Remote[];
  packages?: Package[];
}

/** Package runners by registry type, with the hosts they download from (a sandboxed import asks for them). */
const RUNTIMES: Record<string, { command: string; spec: (id: string, version: string | undefined) => string[]; hosts: string[] }> = {
  npm: { command: 'npx', spec: (id, v) => ['-y', v ? `${id}@${v}` : id], hosts: ['registry.npmjs.org'] },
  pypi: { command: 'uvx', spec: (id, v) => [v ? `${id}==${v}` : id], hosts: ['pypi.org', 'files.pythonhosted.org'] },
};

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The import options of one `server.json`. */
export function importOptions(server: ServerJson): ImportOption[] {
  const out: ImportOption[] = [];
  (server.remotes ?? []).forEach((r, i) => {
    const transport = r.type === 'sse' ? 'sse' : 'streamable_http';
    const inputs: Input[] = [
      ...Object.entries(r.variables ?? {}).map(([name, v]) => input(name, 'variable', v)),
      ...(r.headers ?? []).filter((h) => str(h.name)).map((h) => input(h.name!, 'header', h)),
    ];
    out.push({ id: `remote:${i}`, kind: 'remote', transport, summary: str(r.url) ?? '', supported: !!str(r.url), inputs });
  });
  (server.packages ?? []).forEach((p, i) => {
    const runtime = RUNTIMES[p.registryType ?? ''];
    const stdio = (p.transport?.type ?? 'stdio') === 'stdio';
    const args = [...(p.runtimeArguments ?? []), ...(p.packageArguments ?? [])];
    const inputs: Input[] = [
      ...(p.environmentVariables ?? []).filter((e) => str(e.name)).map((e) => input(e.name!, 'env', e)),
      ...args.filter((a) => a.value === undefined).map((a) => input(argName(a), 'argument', a)),
    ];
    out.push({
      id: `package:${i}`,
      kind: 'package',
      transport: 'stdio',
      summary: runtime
        ? [runtime.command, ...runtime.spec(p.identifier ?? '', p.version)].join(' ')
        : `${p.registryType ?? '?'} ${p.identifier ?? ''}`,
      supported: !!runtime && stdio && !!str(p.identifier),
      inputs,
    });
  });
  return out;
}

function argName(a: Argument): string {
  return a.valueHint ?? a.name ?? 'argument';
}

function input(name: string, kind: Input['kind'], v: KeyValue): Input {
  return {
    name,
    kind,
    // A value fixed by the publisher needs nothing from the admin.
    required: v.isRequired === true && v.value === undefined && v.default === undefined,
    secret: v.isSecret === true,
    description: str(v.description) ?? null,
    default: str(v.default) ?? null,
  };
}

/** Replaces `{name}` in a template by the values (names without a value stay). */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (all, name: string) => values[name] ?? all);
}

export class RegistryImportService {
  private readonly cache = new Map<string, { at: number; body: unknown }>();

  constructor(
    private readonly deps: {
      servers: ServersService;
      policy: { fetch: (url: string | URL, init?: RequestInit) => Promise<Response> };
      /** The registry (general setting `registry_url`, null: the official one) and its token. */
      registry: () => Promise<{ url: string | null; token: string | null }>;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** A page of the registry's latest entries, with their import options. */
  async browse(query: {
    search?: string | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
  }): Promise<Schemas['RegistryBrowseResult']> {
    const params = new URLSearchParams({ version: 'latest', limit: String(query.limit ?? 30) });
    if (query.search) params.set('search', query.search);
    if (query.cursor) params.set('cursor', query.cursor);
    const { base, body } = await this.get(`/v0.1/servers?${params.toString()}`, true);
    const list = body as { servers?: { server?: ServerJson }[]; metadata?: { nextCursor?: unknown } } | null;
    if (!list || !Array.isArray(list.servers)) throw new BadGatewayError('The registry answered something that is not a server list');
    const servers = list.servers
      .filter((e) => e && typeof e.server === 'object' && e.server !== null)
      .map((e) => ({ server: e.server as Record<string, unknown>, options: importOptions(e.server!) }));
    const next = list.metadata?.nextCursor;
    return { registry_url: base, servers, next_cursor: typeof next === 'string' && next ? next : null };
  }

  /** Registers one option of one entry as a server. */
  async import(input: Schemas['RegistryImportRequest']): Promise<ServerView> {
    const version = input.version ?? 'latest';
    const { body } = await this.get(`/v0.1/servers/${encodeURIComponent(input.server)}/versions/${encodeURIComponent(version)}`, false);
    const server = (body as { server?: ServerJson } | null)?.server;
    if (!server || typeof server !== 'object') throw new BadGatewayError('The registry answered something that is not a server entry');
    const options = importOptions(server);
    const option = options.find((o) => o.id === input.option);
    const optionIssue = (msg: string): ValidationIssue => ({
      loc: ['body', 'option'],
      msg,
      type: 'value_error',
      input: input.option,
      ctx: {},
    });
    if (!option)
      throw new RequestValidationError([
        optionIssue(`The entry has no option ${input.option} (it has ${options.map((o) => o.id).join(', ') || 'none'})`),
      ]);
    if (!option.supported)
      throw new RequestValidationError([optionIssue(`${option.summary} cannot be added: no runtime is managed for it`)]);
    const values = input.values ?? {};
    const issues: ValidationIssue[] = [];
    const valueOf = (i: Input, fixed: string | undefined): string | undefined => {
      const v = values[i.name] ?? fixed ?? i.default ?? undefined;
      if (v === undefined && i.required)
        issues.push({
          loc: ['body', 'values', i.name],
          msg: `${i.name} is required (${i.description ?? i.kind})`,
          type: 'missing',
          input: null,
          ctx: {},
        });
      return v;
    };
    const index = Number(option.id.split(':')[1]);
    const name =
      input.name ??
      (server.name ?? input.server)
        .split('/')
        .pop()!
        .replace(/[^A-Za-z0-9_.-]/g, '-')
        .replace(/^[^A-Za-z0-9]+/, '') ??
      'server';
    const common = {
      name: name || 'server',
      description: str(server.description) ?? null,
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    };
    let create: Schemas['MCPServerCreate'];
    if (option.kind === 'remote') {
      const remote = server.remotes![index]!;
      const vars: Record<string, string> = {};
      for (const [k, v] of Object.entries(remote.variables ?? {})) {
        const value = valueOf(input_(option, 'variable', k), v.value);
        if (value !== undefined) vars[k] = value;
      }
      const headers: Record<string, string> = {};
      for (const h of remote.headers ?? []) {
        if (!h.name) continue;
        const value = valueOf(input_(option, 'header', h.name), h.value !== undefined ? fill(h.value, values) : undefined);
        if (value !== undefined) headers[h.name] = value;
      }
      if (issues.length) throw new RequestValidationError(issues);
      create = {
        ...common,
        transport: option.transport as 'streamable_http' | 'sse',
        url: fill(remote.url!, vars),
        ...(Object.keys(headers).length ? { headers } : {}),
      };
    } else {
      const pkg = server.packages![index]!;
      const runtime = RUNTIMES[pkg.registryType!]!;
      const argv = (list: Argument[] | undefined): string[] =>
        (list ?? []).flatMap((a) => {
          const value = a.value !== undefined ? fill(a.value, values) : valueOf(input_(option, 'argument', argName(a)), undefined);
          if (a.type === 'named') return value === undefined ? [] : a.name ? [a.name, value] : [value];
          return value === undefined ? [] : [value];
        });
      const env: Record<string, string> = {};
      const secretEnv: Record<string, string> = {};
      for (const e of pkg.environmentVariables ?? []) {
        if (!e.name) continue;
        const value = valueOf(input_(option, 'env', e.name), e.value !== undefined ? fill(e.value, values) : undefined);
        if (value === undefined) continue;
        if (e.isSecret) secretEnv[e.name] = value;
        else env[e.name] = value;
      }
      const args = [...argv(pkg.runtimeArguments), ...runtime.spec(pkg.identifier!, pkg.version), ...argv(pkg.packageArguments)];
      if (issues.length) throw new RequestValidationError(issues);
      // Imported packages are other people's code: sandboxed wherever this host can, asking an admin
      // for the package registry's hosts (the runner downloads the package at its first start).
      const sandboxed = this.deps.servers.sandboxAvailable();
      create = {
        ...common,
        transport: 'stdio',
        command: runtime.command,
        args,
        ...(Object.keys(env).length ? { env } : {}),
        ...(Object.keys(secretEnv).length ? { secret_env: secretEnv } : {}),
        ...(sandboxed ? { sandboxed: true } : {}),
      };
      const created = await this.deps.servers.create(create);
      if (!created.sandboxed) return created;
      await this.deps.servers.requestNetwork(created.id, runtime.hosts, `registry import of ${pkg.identifier ?? 'a package'}`);
      return this.deps.servers.get(created.id, ADMIN_VIEW);
    }
    return this.deps.servers.create(create);
  }

  /** GETs a registry path under the policy; listings may come from the cache. */
  private async get(pathAndQuery: string, cacheable: boolean): Promise<{ base: string; body: unknown }> {
    const { url: configured, token } = await this.deps.registry();
    const base = (configured ?? OFFICIAL_REGISTRY_URL).replace(/\/+$/, '');
    const url = `${base}${pathAndQuery}`;
    const hit = cacheable ? this.cache.get(url) : undefined;
    if (hit && this.now() - hit.at < CACHE_MS) return { base, body: hit.body };
    let res: Response;
    try {
      res = await this.deps.policy.fetch(url, {
        // The token belongs to the registry the setting names: never sent to the default one.
        headers: { accept: 'application/json', ...(configured && token ? { authorization: `Bearer ${token}` } : {}) },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      if (err instanceof OutboundRefusedError)
        throw new BadGatewayError(`The registry is refused by the outbound-address policy: ${err.message}`);
      throw new BadGatewayError(`The registry could not be reached: ${(err as Error).message}`);
    }
    if (res.status === 404) throw new NotFoundError('The registry has no such server or version', 'registry_entry_not_found');
    if (res.status < 200 || res.status > 299) throw new BadGatewayError(`The registry answered HTTP ${res.status}`);
    if (Number(res.headers.get('content-length')) > MAX_BYTES) throw new BadGatewayError('The registry answer is too large');
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.byteLength > MAX_BYTES) throw new BadGatewayError('The registry answer is too large');
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new BadGatewayError('The registry answered something that is not JSON');
    }
    if (cacheable) {
      if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(url, { at: this.now(), body });
    }
    return { base, body };
  }

  /** Forgets cached listings (the registry setting changed). */
  clearCache(): void {
    this.cache.clear();
  }
}

/** The input of an option by kind and name. */
function input_(option: ImportOption, kind: Input['kind'], name: string): Input {
  return (
    option.inputs.find((i) => i.kind === kind && i.name === name) ?? {
      name,
      kind,
      required: false,
      secret: false,
      description: null,
      default: null,
    }
  );
}
