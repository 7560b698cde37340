import { SecretBox } from '../../lib/secret-box.js';
import { SEALED_COLUMNS, type SealedColumn } from '../../stores/sealed-columns.js';
import type { Transactor } from '../../stores/transactor.js';

/** What a rotation did, per column. */
export interface RotationReport {
  newKeyId: string;
  columns: { table: string; column: string; rewritten: number; alreadyCurrent: number }[];
}

/**
 * Re-encrypts every sealed value of every registered column under `newKey`, in one transaction:
 * either all values move to the new key or none does. Values already sealed with the new key are
 * left alone, so a rotation interrupted after its commit can be run again with the same new key.
 * A value that cannot be opened (unknown key, tampered) aborts the whole rotation.
 */
export async function rotateMasterKey(
  tx: Transactor,
  keys: { current: Buffer; next: Buffer; previous?: readonly Buffer[] },
  columns: readonly SealedColumn[] = SEALED_COLUMNS,
): Promise<RotationReport> {
  const opener = new SecretBox(keys.current, [keys.next, ...(keys.previous ?? [])]);
  const sealer = new SecretBox(keys.next);
  const report: RotationReport = { newKeyId: sealer.currentKeyId, columns: [] };
  await tx.transaction(async ({ sealedValues: store }) => {
    for (const c of columns) {
      let rewritten = 0;
      let alreadyCurrent = 0;
      for (const { id, value } of await store.lockAll(c)) {
        if (SecretBox.keyIdOf(value) === sealer.currentKeyId) {
          alreadyCurrent += 1;
          continue;
        }
        await store.write(c, id, sealer.seal(opener.open(value)));
        rewritten += 1;
      }
      report.columns.push({ table: c.table, column: c.column, rewritten, alreadyCurrent });
    }
  });
  return report;
}
