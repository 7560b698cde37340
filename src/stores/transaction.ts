import type { Knex } from 'knex';

/**
 * A database transaction as services hold it: opaque to them, handed back to stores (`with(tx)`)
 * and to services that write alongside the caller (the activity log).
 */
export type StoreTx = Knex.Transaction;

/** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
export type Transact = <T>(fn: (tx: StoreTx) => Promise<T>) => Promise<T>;

/** The transaction function of a database. */
export function transactor(knex: Knex): Transact {
  return (fn) => knex.transaction(fn);
}
