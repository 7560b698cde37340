/**
 * The embedded engine's own memory and write cost, outside the gateway (ADR 0015): a bare Node
 * process opens an existing database and inserts ENGINE_BATCHES batches of 500 rows (a call-record
 * sized row: text, a small JSON value, a timestamp, one index), reading RSS after opening, at its
 * peak and at the end, and the time per row. PGlite is measured with the settings the gateway uses
 * (ADR 0014), plus any `ENGINE_PG_SETTINGS="work_mem=1MB wal_buffers=64kB …"`; SQLite through
 * better-sqlite3 when it is installed (`npm i --no-save better-sqlite3@12`: a native addon, not a
 * dependency of Toolgate), with WAL journaling. Each engine runs in a process of its own, after a
 * separate process created its database (as the gateway does, ADR 0014).
 * Usage: npx tsx bench/embedded-engines.ts
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeResult } from './harness.js';

const BATCHES = Number(process.env.ENGINE_BATCHES ?? 300);
const EXTRA = (process.env.ENGINE_PG_SETTINGS ?? '').split(' ').filter(Boolean);

const COMMON = `
const rss = () => Math.round(process.memoryUsage().rss / 1048576);
const rows = JSON.stringify(Array.from({ length: 500 }, (_, i) => [i, 'x'.repeat(40), { k: i }]));
const settle = async () => { await new Promise((r) => setTimeout(r, 200)); gc(); gc(); };`;

const PGLITE_PARAMS = `[...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB', '-c', 'max_connections=4', ${EXTRA.map((kv) => `'-c', ${JSON.stringify(kv)}`).join(', ')}]`;

const PGLITE_CREATE = `const { PGlite } = await import('@electric-sql/pglite');
const db = new PGlite(process.argv[1], { startParams: ${PGLITE_PARAMS} }); await db.waitReady; await db.close();`;

const PGLITE_RUN = `const { PGlite } = await import('@electric-sql/pglite');${COMMON}
const base = rss();
const db = new PGlite(process.argv[1], { startParams: ${PGLITE_PARAMS} });
await db.waitReady;
await db.query('create table t (id serial primary key, a text, b jsonb, c timestamptz default now())');
await db.query('create index t_c on t (c)');
await settle();
const open = rss();
let peak = open;
const t0 = performance.now();
for (let i = 0; i < ${BATCHES}; i++) {
  await db.query('insert into t (a, b) select e->>1, e->2 from jsonb_array_elements($1::jsonb) e', [rows]);
  peak = Math.max(peak, rss());
}
const us = ((performance.now() - t0) * 1000) / (${BATCHES} * 500);
await settle();
console.log(JSON.stringify({ engine: 'pglite', node_base_mib: base, open_mib: open, peak_mib: peak, end_mib: rss(), us_per_row: Math.round(us * 10) / 10 }));`;

const SQLITE_RUN = `const { default: Database } = await import('better-sqlite3');${COMMON}
const base = rss();
const db = new Database(process.argv[1] + '/db.sqlite');
db.pragma('journal_mode = WAL');
db.exec("create table t (id integer primary key, a text, b text, c text default (datetime('now')))");
db.exec('create index t_c on t (c)');
await settle();
const open = rss();
let peak = open;
const insert = db.prepare('insert into t (a, b) select value->>1, value->>2 from json_each(?)');
const t0 = performance.now();
for (let i = 0; i < ${BATCHES}; i++) {
  insert.run(rows);
  peak = Math.max(peak, rss());
}
const us = ((performance.now() - t0) * 1000) / (${BATCHES} * 500);
await settle();
console.log(JSON.stringify({ engine: 'sqlite (better-sqlite3)', node_base_mib: base, open_mib: open, peak_mib: peak, end_mib: rss(), us_per_row: Math.round(us * 10) / 10 }));`;

function node(script: string, dir: string): string {
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script, dir], {
    cwd: process.cwd(),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr.trim().split('\n').slice(-3).join('\n'));
  return r.stdout.trim();
}

const results: unknown[] = [];
const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-pglite-'));
node(PGLITE_CREATE, pgDir);
results.push(JSON.parse(node(PGLITE_RUN, pgDir)));
let sqlite = true;
try {
  await import('better-sqlite3' as string);
} catch {
  sqlite = false;
  process.stderr.write('better-sqlite3 is not installed: SQLite not measured (npm i --no-save better-sqlite3@12)\n');
}
if (sqlite) results.push(JSON.parse(node(SQLITE_RUN, fs.mkdtempSync(path.join(os.tmpdir(), 'engine-sqlite-')))));
for (const r of results) console.log(JSON.stringify(r));
const at = new Date().toISOString();
console.log(
  `written: ${writeResult('embedded-engines', at, { at, batches: BATCHES, rows_per_batch: 500, pglite_settings: EXTRA, results })}`,
);
