/**
 * How database driver errors are classified, in one place: the stores, the error mapping (503) and
 * the credential cache (serve a stale entry during an outage) ask this, so nothing else needs to
 * know PostgreSQL or driver error codes.
 */
/**
 * True for errors that mean "cannot reach the database" or "it did not answer in time" (pool
 * acquire timeout, statement deadline, server-side statement timeout 57014), as opposed to a bad query.
 */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string };
  return (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'ENOTFOUND',
      'EHOSTUNREACH',
      '57P01',
      '57P03',
      '57014',
      '08006',
      '08001',
      '08003',
    ].includes(e.code ?? '') ||
    e.name === 'KnexTimeoutError' ||
    e.name === 'DatabaseTimeoutError' ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '') ||
    // pg's own connect timeout (connectionTimeoutMillis), as knex passes it on.
    e.message === 'timeout expired'
  );
}

/**
 * True for errors that mean "the database has no room now" (disk full, quota, out of memory):
 * PostgreSQL's class 53 (53100 disk_full, 53200 out_of_memory), the embedded database's file
 * system errors (ENOSPC, EDQUOT) and their messages. Like an outage, it passes: a write refused
 * for it is retried later, never dropped as if its content were wrong.
 */
export function isResourceExhausted(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; message?: string };
  return (
    ['53100', '53200', 'ENOSPC', 'EDQUOT'].includes(e.code ?? '') ||
    /No space left on device|disk full|could not extend file|out of memory|quota exceeded/i.test(e.message ?? '')
  );
}

/** Why a database write failed, in a few words safe to log (no SQL, no values). */
export function databaseFailureReason(err: unknown): string {
  if (isResourceExhausted(err)) {
    const e = err as { message?: string };
    return /memory/i.test(e.message ?? '') ? 'database out of memory' : 'database out of disk space';
  }
  if (isConnectionError(err)) return 'database unreachable';
  return 'database refused the write';
}
