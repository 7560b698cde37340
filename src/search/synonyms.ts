/**
 * Words that name the same thing in tool names and descriptions, in groups. Tool APIs spell one
 * operation many ways (`create`/`add`/`new`, `delete`/`remove`, `get`/`fetch`/`read`), and a person
 * asks with a third (`make`, `erase`, `display`): BM25 alone matches none of them. The groups are
 * the common CRUD, REST and file-system verbs and a few generic nouns, written from those naming
 * conventions (only the benchmark's development half of the queries was read while writing them,
 * see BENCHMARKS.md "Tool search"). Words that are ambiguous across groups (`open`: a file, a page,
 * a new issue) are left out: a wrong synonym costs more than a missing one.
 */
export const TOOL_SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['create', 'add', 'new', 'make', 'insert'],
  ['delete', 'remove', 'erase', 'drop', 'destroy'],
  ['get', 'fetch', 'retrieve', 'read'],
  ['show', 'view', 'display', 'list'],
  ['update', 'edit', 'modify', 'change'],
  ['search', 'find', 'lookup', 'query'],
  ['send', 'post'],
  ['run', 'execute', 'invoke'],
  ['navigate', 'visit', 'goto'],
  ['move', 'rename'],
  ['copy', 'duplicate', 'clone'],
  ['start', 'begin', 'launch'],
  ['stop', 'end', 'terminate', 'kill'],
  ['directory', 'folder'],
  ['issue', 'ticket', 'bug'],
  ['user', 'person', 'member'],
];

/** Each word of `groups` mapped to the other words of its group(s). */
export function synonymMap(groups: readonly (readonly string[])[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const group of groups) {
    for (const word of group) {
      const others = map.get(word) ?? [];
      for (const other of group) if (other !== word && !others.includes(other)) others.push(other);
      map.set(word, others);
    }
  }
  return map;
}

/** {@link TOOL_SYNONYM_GROUPS} as a map, the keyword index's default. */
export const TOOL_SYNONYMS: ReadonlyMap<string, readonly string[]> = synonymMap(TOOL_SYNONYM_GROUPS);
