import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';

/** Escapes `%`, `_` and `\` and wraps the text for a "contains" LIKE pattern. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Narrows `q` to rows where any of `columns` contains `search` (case-insensitive, literally). */
export function matching(q: Knex.QueryBuilder, search: string | undefined, columns: readonly string[]): void {
  if (!search) return;
  const p = likePattern(search);
  q.where((w) => {
    for (const c of columns) w.orWhereRaw(`${c} ilike ? escape '\\'`, [p]);
  });
}

/**
 * One page of a filtered query and the total it pages through: `base()` builds the filtered query
 * (called twice: once to count, once for the rows), `select` adds columns and order to it.
 */
export async function pageOf<T>(
  base: () => Knex.QueryBuilder,
  select: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  window: PageWindow,
): Promise<{ rows: T[]; total: number }> {
  const [countRow, rows] = await Promise.all([
    base().count<{ count: string | number }[]>({ count: '*' }).first(),
    select(base()).offset(window.offset).limit(window.limit),
  ]);
  return { rows: rows as T[], total: Number(countRow?.count ?? 0) };
}
