import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT_DIR } from '../../src/server.js';

const run = promisify(execFile);
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

describe('developer scripts', function () {
  this.timeout(120000);

  it('`npx mocha <file>` runs that file only (.mocharc.json names no spec)', async () => {
    const rc = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, '.mocharc.json'), 'utf8')) as Record<string, unknown>;
    expect(rc).to.not.have.property('spec');
    const file = 'test/unit/domain/api-key-format.test.ts';
    const { stdout } = await run(path.join(ROOT_DIR, 'node_modules/.bin/mocha'), [file, '--reporter', 'json'], {
      cwd: ROOT_DIR,
      env: { ...process.env, TEST_DATABASE_URL: '' },
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      stats: { tests: number; failures: number };
      tests: { file: string }[];
    };
    expect(report.stats.failures).to.equal(0);
    expect(report.stats.tests).to.be.greaterThan(0);
    expect(new Set(report.tests.map((x) => path.relative(ROOT_DIR, x.file)))).to.deep.equal(new Set([file]));
  });

  it('has test, test:unit, test:contract, test:integration and test:pg, which together cover every test folder', () => {
    expect(pkg.scripts['test:unit']).to.equal("mocha 'test/unit/**/*.test.ts'");
    expect(pkg.scripts['test:contract']).to.equal("mocha 'test/contract/**/*.test.ts'");
    expect(pkg.scripts['test:integration']).to.equal("mocha 'test/integration/**/*.test.ts'");
    for (const folder of ['unit', 'contract', 'integration']) expect(pkg.scripts.test).to.include(`'test/${folder}/**/*.test.ts'`);
    expect(pkg.scripts['test:pg']).to.match(/^TEST_DATABASE_URL=.* npm test$/);
  });
});
