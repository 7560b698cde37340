/** `1 tool`, `2 tools`: a count with its noun in the right number. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
