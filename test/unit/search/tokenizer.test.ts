import { expect } from 'chai';
import { pluralStem, splitIdentifier, tokenize } from '../../../src/search/tokenizer.js';

describe('search tokenizer', () => {
  describe('splitIdentifier', () => {
    it('splits camelCase, PascalCase and acronyms', () => {
      expect(splitIdentifier('getUserById')).to.deep.equal(['get', 'user', 'by', 'id']);
      expect(splitIdentifier('ListPullRequests')).to.deep.equal(['list', 'pull', 'requests']);
      expect(splitIdentifier('HTTPServer')).to.deep.equal(['http', 'server']);
      expect(splitIdentifier('parseJSONBody')).to.deep.equal(['parse', 'json', 'body']);
    });

    it('splits snake_case, kebab-case and dotted names', () => {
      expect(splitIdentifier('list_merge_requests')).to.deep.equal(['list', 'merge', 'requests']);
      expect(splitIdentifier('create-or-update-file')).to.deep.equal(['create', 'or', 'update', 'file']);
      expect(splitIdentifier('files.read__v2')).to.deep.equal(['files', 'read', 'v', '2']);
    });

    it('splits at letter/digit boundaries', () => {
      expect(splitIdentifier('base64Encode')).to.deep.equal(['base', '64', 'encode']);
      expect(splitIdentifier('s3_put2bucket')).to.deep.equal(['s', '3', 'put', '2', 'bucket']);
    });
  });

  describe('tokenize', () => {
    it('lower-cases, drops stop words and keeps the joined identifier', () => {
      expect(tokenize('getUserById')).to.deep.equal(['get', 'user', 'id', 'getuserbyid']);
      expect(tokenize('Search the files in a directory')).to.deep.equal(['search', 'files', 'directory']);
      expect(tokenize('Where can I find what you have?')).to.deep.equal(['find']);
    });

    it('gives the same terms for one name in every case convention', () => {
      const forms = ['list_issues', 'list-issues', 'listIssues', 'ListIssues', 'LIST_ISSUES'];
      const terms = forms.map((f) => tokenize(f));
      for (const t of terms) expect(t).to.deep.equal(terms[0]);
      expect(terms[0]).to.deep.equal(['list', 'issues', 'listissues']);
    });

    it('stems plurals when asked, keeping the written form too', () => {
      expect(tokenize('repositories', { stem: true })).to.deep.equal(['repositories', 'repository']);
      expect(tokenize('screenshot', { stem: true })).to.deep.equal(['screenshot']);
      expect(tokenize('list_files', { stem: true })).to.deep.equal(['list', 'files', 'file', 'listfiles', 'listfile']);
      expect(tokenize('Files', { stem: (t) => t.toUpperCase() })).to.deep.equal(['files', 'FILES']);
    });

    it('pluralStem strips plural endings only', () => {
      const cases: [string, string][] = [
        ['files', 'file'],
        ['repositories', 'repository'],
        ['indexes', 'index'],
        ['matches', 'match'],
        ['addresses', 'address'],
        ['status', 'status'],
        ['access', 'access'],
        ['analysis', 'analysis'],
        ['bus', 'bus'],
        ['deleting', 'deleting'],
        ['ids', 'ids'],
      ];
      for (const [word, stem] of cases) expect(pluralStem(word), word).to.equal(stem);
    });

    it('can keep every term', () => {
      expect(tokenize('Reading the Files', { stopWords: false })).to.deep.equal(['reading', 'the', 'files']);
      expect(tokenize('list_files', { compounds: false })).to.deep.equal(['list', 'files']);
    });

    it('keeps letters and digits of any script and drops punctuation', () => {
      expect(tokenize('Crée un fichier — «rapport» 2024!')).to.deep.equal(['crée', 'un', 'fichier', 'rapport', '2024']);
      expect(tokenize('検索 ツール')).to.deep.equal(['検索', 'ツール']);
      expect(tokenize('  ...  ,;: ')).to.deep.equal([]);
    });

    it('ignores runs longer than 40 characters (hashes, blobs)', () => {
      expect(tokenize(`key ${'a'.repeat(41)} value`)).to.deep.equal(['key', 'value']);
    });
  });
});
