/**
 * The official MCP Python SDK as a second real client in the MCP tests
 * (test/clients/python/mcp_client.py). It lives in a virtual environment under tools/python,
 * made on first use (`npm run tools:python` makes it ahead, as CI does) from
 * test/clients/python/requirements.txt, and made again when that file changes.
 */
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ROOT } from './contract.js';

const CLIENT_DIR = path.join(ROOT, 'test/clients/python');
const REQUIREMENTS = path.join(CLIENT_DIR, 'requirements.txt');
const VENV = path.join(ROOT, 'tools/python/.venv');
const PYTHON = path.join(VENV, 'bin/python');
const STAMP = path.join(VENV, '.toolgate-requirements');

function requirementsHash(): string {
  return createHash('sha256').update(fs.readFileSync(REQUIREMENTS)).digest('hex');
}

function run(command: string, args: string[]): void {
  const r = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout || r.error}`);
}

/**
 * The virtual environment's Python, with the client's requirements installed. Fails (never skips)
 * when python3 with venv is missing: the tests that use it are part of the suite.
 */
export function ensurePythonClient(): string {
  const hash = requirementsHash();
  if (fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === hash) return PYTHON;
  fs.rmSync(VENV, { recursive: true, force: true });
  run('python3', ['-m', 'venv', VENV]);
  // No retries: where only a local package index answers, an unreachable default index is passed at once.
  run(PYTHON, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--retries', '0', '--timeout', '10', '-r', REQUIREMENTS]);
  fs.writeFileSync(STAMP, hash);
  return PYTHON;
}

/** A run of the Python client: its process, and what it printed as JSON once it exits 0. */
export interface PythonRun {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Lines it wrote to stderr so far. */
  readonly stderr: string[];
  readonly result: Promise<Record<string, any>>;
}

export function runPythonClient(args: string[], timeoutMs = 60_000): PythonRun {
  const child = spawn(ensurePythonClient(), [path.join(CLIENT_DIR, 'mcp_client.py'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => stderr.push(...d.split('\n').filter(Boolean)));
  const result = new Promise<Record<string, any>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the Python client did not finish in ${timeoutMs} ms; stderr: ${stderr.join('\n')}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`the Python client exited ${code}; stderr: ${stderr.join('\n')}`));
      else resolve(JSON.parse(out) as Record<string, any>);
    });
  });
  return { child, stderr, result };
}
