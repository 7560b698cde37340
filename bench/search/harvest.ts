/**
 * Harvests the tool lists of MCP servers published on npm into bench/search/tools.json, the
 * corpus of the tool-search quality benchmark (bench/search/run.ts).
 *
 * Each server is installed into a temporary directory (never into the project), started over
 * stdio with the MCP SDK client and asked for `tools/list` (every page). Servers that need an
 * account get a dummy credential: they list their tools without calling their service. A server
 * that fails to install, start or list within the time limit is reported and skipped.
 *
 * Usage: npx tsx bench/search/harvest.ts [--dir /tmp/mcp-harvest] [--only name,name] [--concurrency 3]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, 'tools.json');

interface ServerSpec {
  /** Server name as an admin would register it (the `server` field of each tool). */
  server: string;
  pkg: string;
  /** Bin to run when the package has several. */
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Environment for `npm install` (e.g. skipping a browser download). */
  installEnv?: Record<string, string>;
}

const DUMMY = 'harvest-dummy-credential';

/** The servers harvested: the reference servers and other widely used MCP servers on npm. */
const SERVERS: ServerSpec[] = [
  { server: 'everything', pkg: '@modelcontextprotocol/server-everything', args: ['stdio'] },
  { server: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', args: ['{tmp}'] },
  { server: 'memory', pkg: '@modelcontextprotocol/server-memory' },
  { server: 'github', pkg: '@modelcontextprotocol/server-github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { server: 'gitlab', pkg: '@modelcontextprotocol/server-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { server: 'slack', pkg: '@modelcontextprotocol/server-slack', env: { SLACK_BOT_TOKEN: DUMMY, SLACK_TEAM_ID: 'T000' } },
  { server: 'puppeteer', pkg: '@modelcontextprotocol/server-puppeteer', installEnv: { PUPPETEER_SKIP_DOWNLOAD: '1' } },
  { server: 'postgres', pkg: '@modelcontextprotocol/server-postgres', args: ['postgresql://127.0.0.1:1/none'] },
  { server: 'brave-search', pkg: '@modelcontextprotocol/server-brave-search', env: { BRAVE_API_KEY: DUMMY } },
  { server: 'google-maps', pkg: '@modelcontextprotocol/server-google-maps', env: { GOOGLE_MAPS_API_KEY: DUMMY } },
  { server: 'sequential-thinking', pkg: '@modelcontextprotocol/server-sequential-thinking' },
  { server: 'everart', pkg: '@modelcontextprotocol/server-everart', env: { EVERART_API_KEY: DUMMY } },
  {
    server: 'aws-kb-retrieval',
    pkg: '@modelcontextprotocol/server-aws-kb-retrieval',
    env: { AWS_ACCESS_KEY_ID: DUMMY, AWS_SECRET_ACCESS_KEY: DUMMY, AWS_REGION: 'us-east-1' },
  },
  { server: 'playwright', pkg: '@playwright/mcp' },
  { server: 'chrome-devtools', pkg: 'chrome-devtools-mcp' },
  { server: 'notion', pkg: '@notionhq/notion-mcp-server', env: { NOTION_TOKEN: DUMMY } },
  { server: 'circleci', pkg: '@circleci/mcp-server-circleci', env: { CIRCLECI_TOKEN: DUMMY } },
  { server: 'mongodb', pkg: 'mongodb-mcp-server', env: { MDB_MCP_TELEMETRY: 'disabled' } },
  { server: 'gitlab-community', pkg: '@zereight/mcp-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { server: 'desktop-commander', pkg: '@wonderwhy-er/desktop-commander' },
  { server: 'datadog', pkg: '@winor30/mcp-server-datadog', env: { DATADOG_API_KEY: DUMMY, DATADOG_APP_KEY: DUMMY } },
  { server: 'charts', pkg: '@antv/mcp-server-chart' },
  { server: 'tavily', pkg: 'tavily-mcp', env: { TAVILY_API_KEY: DUMMY } },
  { server: 'firecrawl', pkg: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: 'fc-' + DUMMY } },
  { server: 'sentry', pkg: '@sentry/mcp-server', args: [`--access-token=${DUMMY}`] },
  { server: 'shortcut', pkg: '@shortcut/mcp', env: { SHORTCUT_API_TOKEN: DUMMY } },
  { server: 'mobile', pkg: '@mobilenext/mobile-mcp' },
  { server: 'kubernetes', pkg: 'mcp-server-kubernetes' },
  { server: 'git', pkg: '@cyanheads/git-mcp-server' },
  { server: 'airtable', pkg: 'airtable-mcp-server', env: { AIRTABLE_API_KEY: DUMMY } },
  { server: 'asana', pkg: '@roychri/mcp-server-asana', env: { ASANA_ACCESS_TOKEN: DUMMY } },
  { server: 'microsoft-365', pkg: '@softeria/ms-365-mcp-server', args: ['--org-mode'] },
  { server: 'google-calendar', pkg: '@cocal/google-calendar-mcp' },
  { server: 'heroku', pkg: '@heroku/mcp-server', env: { HEROKU_API_KEY: DUMMY } },
  { server: 'pinecone', pkg: '@pinecone-database/mcp', env: { PINECONE_API_KEY: DUMMY } },
  { server: 'airbnb', pkg: '@openbnb/mcp-server-airbnb', args: ['--ignore-robots-txt'] },
  { server: 'mermaid', pkg: 'mcp-mermaid' },
  { server: 'hubspot', pkg: '@hubspot/mcp-server' },
  { server: 'stripe', pkg: '@stripe/mcp', args: ['--tools=all', '--api-key=sk_test_harvestdummy'] },
  { server: 'context7', pkg: '@upstash/context7-mcp' },
  { server: 'exa', pkg: 'exa-mcp-server', env: { EXA_API_KEY: DUMMY } },
  { server: 'todoist', pkg: 'todoist-mcp', env: { TODOIST_API_KEY: DUMMY } },
  { server: 'postgres-admin', pkg: '@henkey/postgres-mcp-server', args: ['--connection-string', 'postgresql://127.0.0.1:1/none'] },
  { server: 'neon', pkg: '@neondatabase/mcp-server-neon', args: ['start', DUMMY] },
  { server: 'monday', pkg: '@mondaydotcomorg/monday-api-mcp', args: ['-t', DUMMY] },
  { server: 'argocd', pkg: 'argocd-mcp', args: ['stdio'], env: { ARGOCD_BASE_URL: 'http://127.0.0.1:1', ARGOCD_API_TOKEN: DUMMY } },
  { server: 'linear', pkg: 'linear-mcp', env: { LINEAR_API_KEY: DUMMY } },
  { server: 'time', pkg: 'time-mcp' },
  { server: 'fetch', pkg: '@kazuph/mcp-fetch' },
  { server: 'launchdarkly', pkg: '@launchdarkly/mcp-server', args: ['start', '--api-key', DUMMY] },
  { server: 'elasticsearch', pkg: '@elastic/mcp-server-elasticsearch', env: { ES_URL: 'http://127.0.0.1:1', ES_API_KEY: DUMMY } },
  {
    server: 'mysql',
    pkg: '@benborla29/mcp-server-mysql',
    env: { MYSQL_HOST: '127.0.0.1', MYSQL_PORT: '1', MYSQL_USER: 'x', MYSQL_DB: 'x' },
  },
  { server: 'supabase', pkg: '@supabase/mcp-server-supabase', args: [`--access-token=${DUMMY}`] },
  {
    server: 'jira',
    pkg: '@aashari/mcp-server-atlassian-jira',
    env: { ATLASSIAN_SITE_NAME: 'x', ATLASSIAN_USER_EMAIL: 'x@x', ATLASSIAN_API_TOKEN: DUMMY },
  },
  { server: 'excel', pkg: '@negokaz/excel-mcp-server' },
  { server: 'pdf-reader', pkg: '@sylphx/pdf-reader-mcp' },
  { server: 'trello', pkg: '@delorenj/mcp-server-trello', env: { TRELLO_API_KEY: DUMMY, TRELLO_TOKEN: DUMMY } },
  { server: 'obsidian', pkg: 'mcp-obsidian', args: ['{tmp}'] },
  { server: 'reddit', pkg: 'reddit-mcp-buddy' },
  { server: 'email', pkg: '@codefuturist/email-mcp' },
  { server: 'cloudflare', pkg: '@cloudflare/mcp-server-cloudflare', args: ['run', 'x'] },
  { server: 'pubmed', pkg: '@cyanheads/pubmed-mcp-server' },
];

const ListResult = z.looseObject({ tools: z.array(z.record(z.string(), z.unknown())), nextCursor: z.string().optional() });

interface HarvestedTool {
  server: string;
  package: string;
  version: string;
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Installs one package into its own folder under `dir`; returns the folder. */
async function install(dir: string, spec: ServerSpec): Promise<string> {
  const prefix = path.join(dir, spec.server);
  if (fs.existsSync(path.join(prefix, 'node_modules', spec.pkg, 'package.json'))) return prefix;
  fs.mkdirSync(prefix, { recursive: true });
  fs.writeFileSync(path.join(prefix, 'package.json'), '{"private":true}');
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', spec.pkg], {
    cwd: prefix,
    env: { ...process.env, ...spec.installEnv },
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return prefix;
}

/** The JavaScript file of the package's bin (the named one, the only one, or the one named like the package). */
function binFile(prefix: string, spec: ServerSpec): { file: string; version: string } {
  const pkgDir = path.join(prefix, 'node_modules', spec.pkg);
  const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
    version: string;
    bin?: string | Record<string, string>;
    main?: string;
  };
  let rel: string | undefined;
  if (typeof manifest.bin === 'string') rel = manifest.bin;
  else if (manifest.bin) {
    const entries = Object.entries(manifest.bin);
    rel = (spec.bin ? manifest.bin[spec.bin] : undefined) ?? (entries.length === 1 ? entries[0]![1] : undefined);
    rel ??= entries.find(([name]) => /mcp|server/.test(name))?.[1] ?? entries[0]?.[1];
  }
  rel ??= manifest.main;
  if (!rel) throw new Error('package has no bin');
  return { file: path.join(pkgDir, rel), version: manifest.version };
}

async function listTools(spec: ServerSpec, prefix: string, tmp: string): Promise<HarvestedTool[]> {
  const { file, version } = binFile(prefix, spec);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [file, ...(spec.args ?? []).map((a) => a.replaceAll('{tmp}', tmp))],
    env: { ...getDefaultEnvironment(), HOME: tmp, ...spec.env },
    cwd: tmp,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'toolgate-harvest', version: '0.1.0' });
  const timer = setTimeout(() => void transport.close(), 60_000);
  try {
    await client.connect(transport, { timeout: 45_000 });
    const tools: HarvestedTool[] = [];
    let cursor: string | undefined;
    do {
      // A permissive result schema: some published servers list schemas the SDK's strict one rejects.
      const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListResult, { timeout: 45_000 });
      for (const t of page.tools) {
        if (typeof t.name !== 'string' || !t.name) continue;
        tools.push({
          server: spec.server,
          package: spec.pkg,
          version,
          name: t.name,
          ...(typeof t.title === 'string' && t.title ? { title: t.title } : {}),
          description: typeof t.description === 'string' ? t.description : '',
          inputSchema: (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const dir = argValue('--dir') ?? path.join(os.tmpdir(), 'toolgate-mcp-harvest');
  const only = argValue('--only')?.split(',');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-harvest-home-'));
  const previous: HarvestedTool[] = fs.existsSync(OUT)
    ? (JSON.parse(fs.readFileSync(OUT, 'utf8')) as { tools: HarvestedTool[] }).tools
    : [];
  const specs = SERVERS.filter((s) => !only || only.includes(s.server));
  const harvested = new Map<string, HarvestedTool[]>();
  for (const t of previous) if (!specs.some((s) => s.server === t.server)) harvested.set(t.server, [...(harvested.get(t.server) ?? []), t]);
  const failures: string[] = [];
  const concurrency = Number(argValue('--concurrency') ?? 3);
  const pending = [...specs];
  const worker = async () => {
    for (let spec = pending.shift(); spec; spec = pending.shift()) {
      const started = Date.now();
      try {
        const prefix = await install(dir, spec);
        const tools = await listTools(spec, prefix, tmp);
        if (tools.length === 0) throw new Error('no tools listed');
        harvested.set(spec.server, tools);
        console.log(`${spec.server.padEnd(22)} ${String(tools.length).padStart(4)} tools  (${spec.pkg}, ${Date.now() - started} ms)`);
      } catch (err) {
        failures.push(spec.server);
        console.log(`${spec.server.padEnd(22)} FAILED: ${(err as Error).message.split('\n')[0]}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const tools = [...harvested.values()].flat().sort((a, b) => a.server.localeCompare(b.server) || a.name.localeCompare(b.name));
  const servers = new Set(tools.map((t) => t.server));
  // One tool per line: compact, and a re-harvest diffs line by line.
  const header = JSON.stringify({ harvested_at: new Date().toISOString(), servers: servers.size, count: tools.length });
  fs.writeFileSync(OUT, `${header.slice(0, -1)},"tools":[\n${tools.map((t) => JSON.stringify(t)).join(',\n')}\n]}\n`);
  fs.rmSync(tmp, { recursive: true, force: true });
  console.log(`\n${tools.length} tools from ${servers.size} servers written to ${path.relative(process.cwd(), OUT)}`);
  if (failures.length) console.log(`not harvested: ${failures.join(', ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
