import { expect } from 'chai';
import { commandAllowed, stdioLaunchAllowed } from '../../../src/domain/stdio-commands.js';

describe('stdio commands an admin allows (src/domain/stdio-commands.ts)', () => {
  it('allows every command while the list is empty', () => {
    expect(commandAllowed('/usr/bin/anything', [])).to.equal(true);
  });

  it('matches a name against any path of that name, an absolute path against that file only', () => {
    const list = ['npx', '/opt/tools/bin/server'];
    expect(commandAllowed('npx', list)).to.equal(true);
    expect(commandAllowed('/usr/local/bin/npx', list)).to.equal(true);
    expect(commandAllowed('/opt/tools/bin/server', list)).to.equal(true);
    expect(commandAllowed('/opt/tools/bin/../bin/server', list)).to.equal(true);
    expect(commandAllowed('/tmp/server', list)).to.equal(false);
    expect(commandAllowed('node', list)).to.equal(false);
    expect(commandAllowed('npx-evil', list)).to.equal(false);
  });

  it('always allows the jailed launch of a generated server (working directory in the generated folder)', () => {
    expect(stdioLaunchAllowed('/usr/bin/prlimit', '/data/generated/abc', ['uvx'], '/data/generated')).to.equal(true);
    expect(stdioLaunchAllowed('/usr/bin/prlimit', '/data/other', ['uvx'], '/data/generated')).to.equal(false);
    expect(stdioLaunchAllowed('/usr/bin/prlimit', '/data/generated', ['uvx'], '/data/generated')).to.equal(false);
  });
});
