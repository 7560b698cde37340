import type { Knex } from 'knex';
import type { SealedColumn } from './sealed-columns.js';

/** Reads and rewrites the sealed values of one registered column (master-key rotation). */
export class SealedValuesStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** Every non-null value of the column, rows locked until the transaction ends. */
  async lockAll(c: SealedColumn): Promise<{ id: unknown; value: string }[]> {
    const rows = await this.db(c.table).select({ id: c.id, value: c.column }).whereNotNull(c.column).forUpdate();
    return rows as { id: unknown; value: string }[];
  }

  async write(c: SealedColumn, id: unknown, value: string): Promise<void> {
    await this.db(c.table)
      .where({ [c.id]: id })
      .update({ [c.column]: value });
  }
}
