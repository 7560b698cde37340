/**
 * The dev tools that need Node 22 (the MCP Inspector, the MCP conformance suite) live in a nested
 * package, `tools/node22`, so that `npm install` of Toolgate on Node 20 prints no engine warnings.
 * They are installed on demand, with the Node 22 binary of `tools/node22/runtime` (npm package
 * `node`), and run with it.
 *
 *   npm run tools:node22                     # install (or check) them
 *   npm run inspector -- --cli <url> ...      # the MCP Inspector CLI
 *   tsx scripts/node22.ts conformance ...     # the conformance suite (npm run test:conformance uses it)
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirLock, DataDirLockedError } from '../src/lib/data-dir-lock.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TOOLS_DIR = path.join(ROOT, 'tools/node22');
const RUNTIME_DIR = path.join(TOOLS_DIR, 'runtime');
/** The Node 22 binary the tools run with. */
export const NODE22 = path.join(RUNTIME_DIR, 'node_modules/node/bin/node');
/** Entry points of the tools, run with NODE22. */
export const TOOLS = {
  inspector: path.join(TOOLS_DIR, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js'),
  conformance: path.join(TOOLS_DIR, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
} as const;
const STAMP = '.toolgate-installed';

/** The lock file's hash: an install is current when its stamp holds it. */
function lockHash(dir: string): string {
  return createHash('sha256')
    .update(fs.readFileSync(path.join(dir, 'package-lock.json')))
    .digest('hex');
}

function isCurrent(dir: string): boolean {
  try {
    return fs.readFileSync(path.join(dir, 'node_modules', STAMP), 'utf8') === lockHash(dir);
  } catch {
    return false;
  }
}

/** npm's own script (npm-cli.js), to run npm under a Node of our choice. */
function npmCli(): string {
  const fromEnv = process.env.npm_execpath;
  if (fromEnv && /npm-cli\.js$/.test(fromEnv)) return fromEnv;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'npm');
    if (!fs.existsSync(candidate)) continue;
    const real = fs.realpathSync(candidate);
    if (/npm-cli\.js$/.test(real)) return real;
  }
  throw new Error('npm (npm-cli.js) not found on PATH');
}

/** Runs `npm ci` in `dir` with the given Node; npm's output goes to stderr. */
function npmCi(node: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [npmCli(), 'ci', '--no-audit', '--no-fund'], {
      cwd: dir,
      // Install scripts that call `node` get the same Node as npm.
      env: { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', process.stderr, process.stderr],
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm ci in ${dir} exited with ${code}`))));
  });
}

async function install(node: string, dir: string): Promise<void> {
  if (isCurrent(dir)) return;
  process.stderr.write(`Installing the Node 22 tools in ${path.relative(ROOT, dir)} (once)...\n`);
  await npmCi(node, dir);
  fs.writeFileSync(path.join(dir, 'node_modules', STAMP), lockHash(dir));
}

/** Installs the runtime and the tools unless current (one installer at a time). */
export async function ensureNode22Tools(): Promise<void> {
  if (isCurrent(RUNTIME_DIR) && isCurrent(TOOLS_DIR)) return;
  let lock: DataDirLock | undefined;
  const deadline = Date.now() + 10 * 60_000;
  while (!lock) {
    try {
      lock = DataDirLock.acquire(TOOLS_DIR, { role: 'cli', command: 'install the Node 22 tools' });
    } catch (err) {
      if (!(err instanceof DataDirLockedError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    // The runtime package has no engine constraint: the running npm installs it.
    await install(process.execPath, RUNTIME_DIR);
    await install(NODE22, TOOLS_DIR);
  } finally {
    lock.release();
  }
}

/** Runs one of the tools with Node 22, forwarding signals; resolves with its exit code. */
export async function runNode22Tool(tool: keyof typeof TOOLS, args: readonly string[]): Promise<number> {
  await ensureNode22Tools();
  const child = spawn(NODE22, [TOOLS[tool], ...args], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'install') {
    await ensureNode22Tools();
    process.stderr.write(`Node 22 tools ready: ${path.relative(ROOT, NODE22)}\n`);
  } else if (command === 'inspector' || command === 'conformance') {
    process.exit(await runNode22Tool(command, args));
  } else {
    process.stderr.write('usage: tsx scripts/node22.ts install | inspector [args...] | conformance [args...]\n');
    process.exit(2);
  }
}
