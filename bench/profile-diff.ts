/**
 * Sets two or more V8 CPU profiles (.cpuprofile, e.g. from `STEADY_PROFILE_DIR`) side by side:
 * the share of samples spent in each function (self time), grouped by function and file, and the
 * special nodes ((garbage collector), (program), (idle)), so a cheap run and an expensive run of
 * the same build can be compared line by line. Shares, not absolute times: each profile covers
 * one trial, and the question is where an expensive run's extra time goes.
 * Usage: npx tsx bench/profile-diff.ts a.cpuprofile b.cpuprofile [...] [--top 30]
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Self time (µs) per "function (file:line)" key, and the profile's total. */
function selfTimes(profile: Profile): { byKey: Map<string, number>; total: number } {
  const keyOf = new Map<number, string>();
  for (const n of profile.nodes) {
    const file = n.callFrame.url ? path.basename(n.callFrame.url.replace(/^file:\/\//, '')) : '';
    const fn = n.callFrame.functionName || '(anonymous)';
    keyOf.set(n.id, file ? `${fn} ${file}:${n.callFrame.lineNumber + 1}` : fn);
  }
  const byKey = new Map<string, number>();
  let total = 0;
  // timeDeltas[i] is the time before sample i; attribute it to that sample's node.
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = Math.max(0, profile.timeDeltas[i] ?? 0);
    const key = keyOf.get(profile.samples[i]!) ?? '?';
    byKey.set(key, (byKey.get(key) ?? 0) + dt);
    total += dt;
  }
  return { byKey, total };
}

function main(): void {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 30;
  if (args.length < 2) throw new Error('usage: profile-diff.ts a.cpuprofile b.cpuprofile [...] [--top N]');
  const profiles = args.map((f) => ({
    name: path.basename(f, '.cpuprofile'),
    ...selfTimes(JSON.parse(fs.readFileSync(f, 'utf8')) as Profile),
  }));
  const idle = (p: (typeof profiles)[number]) => p.byKey.get('(idle)') ?? 0;
  // Shares of busy time (idle left out), so profiles of different lengths compare.
  const share = (p: (typeof profiles)[number], key: string) => (100 * (p.byKey.get(key) ?? 0)) / Math.max(1, p.total - idle(p));
  const keys = new Set<string>();
  for (const p of profiles) for (const k of p.byKey.keys()) if (k !== '(idle)') keys.add(k);
  const rows = [...keys]
    .map((k) => ({ k, shares: profiles.map((p) => share(p, k)) }))
    .sort((a, b) => Math.max(...b.shares) - Math.max(...a.shares))
    .slice(0, top);
  const w = 9;
  console.log(profiles.map((p) => p.name.padStart(w)).join(' ') + '  function (self time, % of busy samples)');
  console.log(profiles.map((p) => `${((p.total - idle(p)) / 1000).toFixed(0)}ms`.padStart(w)).join(' ') + '  busy time in the profile');
  for (const r of rows) console.log(r.shares.map((s) => s.toFixed(2).padStart(w)).join(' ') + '  ' + r.k);
}

main();
