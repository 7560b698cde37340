/**
 * The Node/V8 flags production runs the server with: those of `npm start` in package.json, so
 * that the benches measure what `npm start` gets. BENCH_NODE_FLAGS, when set (even empty),
 * replaces them, to measure other flags or none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The flags between `node` and `--import tsx` in the `start` script (e.g. `--heap-growing-percent=100`). */
export function productionNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const match = /\bnode((?: --[\w-]+(?:=\S+)?)*) --import tsx src\/main\.ts/.exec(pkg.scripts.start ?? '');
  if (!match) throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return match[1]!.split(' ').filter(Boolean);
}

/** BENCH_NODE_FLAGS if set, else the production flags. */
export function benchNodeFlags(): string[] {
  const env = process.env.BENCH_NODE_FLAGS;
  return env === undefined ? productionNodeFlags() : env.split(' ').filter(Boolean);
}
