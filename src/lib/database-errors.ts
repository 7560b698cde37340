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
