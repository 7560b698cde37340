import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/contract.js';

/**
 * npm 11 runs a package's install scripts only when `allowScripts` in package.json decides them,
 * and warns about every locked package with install scripts that it does not name ("install
 * scripts not yet covered by allowScripts"). The first `npm run inspector` installs the Node 22
 * tools: every package there must be decided, so the install prints no such warning.
 */
function undecided(dir: string): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean; version?: string }>;
  };
  const decided = new Set(Object.keys(pkg.allowScripts ?? {}));
  return Object.entries(lock.packages)
    .filter(([name, p]) => name && p.hasInstallScript)
    .map(([name, p]) => [name.replace(/^.*node_modules\//, ''), p.version] as const)
    .filter(([name]) => !decided.has(name))
    .map(([name, version]) => `${name}@${version}`);
}

describe('allowScripts: installs print no "not yet covered by allowScripts" warning', () => {
  for (const dir of ['.', 'tools/node22', 'tools/node22/runtime'])
    it(`decides every locked package with install scripts (${dir})`, () => {
      expect(undecided(path.join(ROOT, dir))).to.deep.equal([]);
    });
});
