import { expect } from 'chai';
import { renamedInMessage } from '../../../src/mcp/methods/tools.js';

describe('renamedInMessage (upstream messages about a renamed tool)', () => {
  it("replaces the upstream name with the bundle's name wherever it stands as a name", () => {
    expect(renamedInMessage('Unknown tool: create_issue', 'create_issue', 'file_bug')).to.equal('Unknown tool: file_bug');
    expect(renamedInMessage('Tool create_issue failed. Retry create_issue.', 'create_issue', 'file_bug')).to.equal(
      'Tool file_bug failed. Retry file_bug.',
    );
    expect(renamedInMessage('"create_issue" (create_issue)', 'create_issue', 'file_bug')).to.equal('"file_bug" (file_bug)');
  });

  it('leaves longer names that merely contain it alone', () => {
    for (const text of ['create_issue_v2 failed', 'x.create_issue failed', 'create_issue.v2 failed', 'recreate_issue']) {
      expect(renamedInMessage(text, 'create_issue', 'file_bug')).to.equal(text);
    }
  });

  it('treats names as literals (dots and dashes), and $ in the new name as text', () => {
    expect(renamedInMessage('Unknown tool: a.b-c', 'a.b-c', 'x$&y')).to.equal('Unknown tool: x$&y');
    expect(renamedInMessage('Unknown tool: aXb-c', 'a.b-c', 'x')).to.equal('Unknown tool: aXb-c');
  });

  it('returns the text untouched when the tool keeps its name', () => {
    expect(renamedInMessage('Unknown tool: echo', 'echo', 'echo')).to.equal('Unknown tool: echo');
  });
});
