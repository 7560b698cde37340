import { ConflictError } from '../errors.js';

/** What a unique constraint means to a caller: constraint (or index) name → [message, code]. */
export type UniqueConflicts = Readonly<Record<string, readonly [message: string, code: string]>>;

/**
 * The one place that knows PostgreSQL's unique_violation (23505): returns a `.catch` handler that
 * turns it into the ConflictError its constraint names (or `fallback`), and rethrows anything else.
 * PGlite does not always fill `constraint`, so the message is searched for the name too.
 */
export function conflictOnUnique(conflicts: UniqueConflicts, fallback?: readonly [message: string, code: string]) {
  return (err: unknown): never => {
    const e = err as { code?: string; constraint?: string; message?: string };
    if (e.code !== '23505') throw err;
    const which = `${e.constraint ?? ''} ${e.message ?? ''}`;
    for (const [name, [message, code]] of Object.entries(conflicts)) if (which.includes(name)) throw new ConflictError(message, code);
    const [message, code] = fallback ?? ['A uniqueness rule forbids this change', 'conflict'];
    throw new ConflictError(message, code);
  };
}
