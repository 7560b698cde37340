/**
 * Plumbing the benches share: pinning a process to a core, starting a bench process that prints
 * its JSON facts on its first stdout line, a process's CPU time from /proc, writing a result file,
 * opening legacy MCP sessions on a bundle endpoint, and the B1 echo call on a bench gateway's echo
 * bundle.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Target } from './load.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** Headers of a JSON-RPC POST to an MCP endpoint. */
export const MCP_JSON = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

/** Pins a process (all its threads) to one core; a no-op on one core or without taskset. */
export function pin(pid: number, core: number): void {
  if (os.cpus().length < 2) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
  } catch {
    // taskset missing: unpinned.
  }
}

/**
 * Starts `node <args>` in the repository, pinned to `core`, and waits for the JSON line it prints
 * first (its port, keys, ...). `ipc` opens an IPC channel (the gateway's heap command).
 */
export async function startProcess(
  args: string[],
  core: number,
  options: { ipc?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; info: any }> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit', ...(options.ipc ? ['ipc' as const] : [])],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  pin(child.pid!, core);
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  pin(child.pid!, core); // again: threads started since
  return { child, info: JSON.parse(line) };
}

/** Sends a command over a bench gateway's IPC channel and resolves with its one reply. */
export function ask<T>(child: ChildProcess, cmd: Record<string, unknown>): Promise<T> {
  return new Promise<T>((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(cmd);
  });
}

/** CPU seconds (user + system) of a process so far. */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/**
 * Writes a bench's result to `bench/results/<name>-<at>.json` (`at` an ISO time, its `:` and `.`
 * as `-`), pretty-printed; returns the file's path.
 */
/**
 * Where result files go: bench/results, or BENCH_RESULTS_DIR (the smoke run writes to a temporary
 * folder, so a check that the benches still run leaves no results behind).
 */
export function resultsDir(): string {
  return process.env.BENCH_RESULTS_DIR || path.join(ROOT, 'bench', 'results');
}

export function writeResult(name: string, at: string, result: unknown): string {
  const dir = resultsDir();
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${at.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/** Opens `n` legacy (2025-11-25) sessions on an MCP endpoint; their ids. */
export async function openSessions(url: string, n: number, clientName = 'bench'): Promise<string[]> {
  const sessions: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: MCP_JSON,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
      }),
    });
    await res.text();
    sessions.push(res.headers.get('mcp-session-id')!);
  }
  return sessions;
}

/** The middle value (the upper one of an even count): trials are quoted by their median. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const TEXT_1K = 'x'.repeat(1024);

/** B1's request body: `tools/call` of `echo` with a 1 KiB argument (echoed back), JSON-RPC id `seq`. */
export const echoCallBody = (seq: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'echo', arguments: { text: TEXT_1K } } });

/**
 * B1 on a bench gateway (bench/gateway.ts): the echo call on its echo bundle, client `c` on the
 * `c mod sessions`-th of `sessions` legacy sessions opened here.
 */
export async function echoBundleTarget(gateway: { port: number; echoKey: string }, sessions: number, clientName: string): Promise<Target> {
  const origin = `http://127.0.0.1:${gateway.port}`;
  const bundlePath = `/mcp/bundle/${gateway.echoKey}`;
  const ids = await openSessions(origin + bundlePath, sessions, clientName);
  return {
    origin,
    path: bundlePath,
    headers: (c) => ({ ...MCP_JSON, 'mcp-session-id': ids[c % sessions]!, 'mcp-protocol-version': '2025-11-25' }),
    body: echoCallBody,
  };
}
