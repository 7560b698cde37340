import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { ROOT } from '../helpers/contract.js';

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  dev?: boolean;
}

/** Packages of a lock file whose `engines.node` does not accept `version` (npm prints EBADENGINE for each). */
function refusing(lockFile: string, version: string): string[] {
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  return Object.entries(lock.packages)
    .filter(([, p]) => {
      const range = Array.isArray(p.engines) ? undefined : p.engines?.node;
      return range !== undefined && !semver.satisfies(version, range, { includePrerelease: true });
    })
    .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')}@${p.version} (node ${(p.engines as { node: string }).node})`);
}

describe('engines: npm install on Node 20 prints no EBADENGINE warning', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lowest = semver.minVersion(pkg.engines.node)!.version;

  it('declares Node 20.19 as the lowest supported version', () => {
    expect(lowest).to.equal('20.19.0');
  });

  it('locks no package (dependency or dev tool) that refuses the lowest supported Node', () => {
    expect(refusing(path.join(ROOT, 'package-lock.json'), lowest)).to.deep.equal([]);
  });

  it('keeps the tools that need Node 22 in tools/node22, whose own lock accepts the Node 22 it runs them with', () => {
    const runtime = JSON.parse(fs.readFileSync(path.join(ROOT, 'tools/node22/runtime/package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const node22 = runtime.packages['node_modules/node']!.version!;
    expect(semver.major(node22)).to.equal(22);
    expect(refusing(path.join(ROOT, 'tools/node22/package-lock.json'), node22)).to.deep.equal([]);
    const root = fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8');
    expect(root).not.to.include('node_modules/@modelcontextprotocol/inspector"');
    expect(root).not.to.include('node_modules/@modelcontextprotocol/conformance"');
  });
});
