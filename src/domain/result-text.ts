/**
 * An upstream result's original JSON text, kept with the parsed object so an endpoint that
 * forwards it unchanged splices the text in instead of serialising the object again.
 */

/**
 * Where a result object keeps the JSON text it arrived as (a non-enumerable property, so a copy or
 * a spread of the result never carries it). An MCP endpoint answering with the same, unchanged
 * object splices this text in instead of serialising the object again.
 */
export const RESULT_TEXT: unique symbol = Symbol('toolgate.resultText');

/** Marks `result` as unchanged from `text`, the exact JSON text of it the upstream sent. */
export function withResultText<T extends object>(result: T, text: string): T {
  Object.defineProperty(result, RESULT_TEXT, { value: text, enumerable: false });
  return result;
}

/** The JSON text an unchanged upstream result arrived as, if it was kept. */
export function resultText(result: unknown): string | undefined {
  return typeof result === 'object' && result !== null ? ((result as { [RESULT_TEXT]?: string })[RESULT_TEXT] ?? undefined) : undefined;
}
