/**
 * What production runs: the Node/V8 flags of `npm start` in package.json, so that the benches
 * measure what `npm start` gets (BENCH_NODE_FLAGS, when set (even empty), replaces them, to measure
 * other flags or none), and the gateway compiled as `npm start` runs it (`gatewayEntry`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The flags between `node` and `dist/main.js` in the `start` script (e.g. `--heap-growing-percent=100`). */
export function productionNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const match = /\bnode((?: --[\w-]+(?:=\S+)?)*) dist\/main\.js/.exec(pkg.scripts.start ?? '');
  if (!match) throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return match[1]!.split(' ').filter(Boolean);
}

/** BENCH_NODE_FLAGS if set, else the production flags. */
export function benchNodeFlags(): string[] {
  const env = process.env.BENCH_NODE_FLAGS;
  return env === undefined ? productionNodeFlags() : env.split(' ').filter(Boolean);
}

let built = false;

/**
 * The script of the bench gateway process (bench/gateway.ts), compiled as `npm start` runs the
 * server: builds dist/ (the server, and bench/gateway.ts as dist/bench/gateway.js, which loads the
 * server from dist/) once per bench run, and returns dist/bench/gateway.js for `node` to run.
 */
export function gatewayEntry(): string {
  if (!built) {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-server.mjs'), '--bench'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    built = true;
  }
  return path.join(ROOT, 'dist', 'bench', 'gateway.js');
}
