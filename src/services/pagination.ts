import type { PageWindow } from '../domain/page.js';

/** The contract's paging parameters (`page` ≥ 1, `page_size` 1..100; defaults 1 and 20). */
export interface PageQuery {
  page?: number | undefined;
  page_size?: number | undefined;
}

/** One page of a contract list response. */
export interface PageOf<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export const DEFAULT_PAGE_SIZE = 20;

/** The rows a page request covers (the validator has checked the bounds; defaults fill gaps). */
export function pageWindow(query: PageQuery): PageWindow & { page: number; pageSize: number } {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
  return { page, pageSize, offset: (page - 1) * pageSize, limit: pageSize };
}

/** The contract's list response for one page of mapped rows. */
export function pageResult<R, T>(
  window: { page: number; pageSize: number },
  rows: readonly R[],
  total: number,
  map: (row: R) => T,
): PageOf<T> {
  return { items: rows.map(map), total, page: window.page, page_size: window.pageSize };
}
