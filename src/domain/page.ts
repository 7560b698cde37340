/** Which rows of an ordered listing one page covers (built from `page`/`page_size` by `pageWindow`). */
export interface PageWindow {
  readonly offset: number;
  readonly limit: number;
}
