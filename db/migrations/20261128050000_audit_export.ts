import type { Knex } from 'knex';

/**
 * Audit export: call records and activity entries get a number from one shared sequence
 * (`audit_seq`) as they are written, which orders them for the exporter across both tables; each
 * sink keeps how far it has delivered (`audit_export_cursors`), so delivery resumes where it
 * stopped after a restart or an outage of the sink (at least once).
 *
 * Rows written before this migration keep a null number and are not exported (the columns are
 * added without a default first, so no existing row is rewritten). The partial indexes serve the
 * exporter's "after this number" reads only.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create sequence audit_seq');
  for (const table of ['call_records', 'activity_log']) {
    await knex.raw(`alter table ${table} add column audit_seq bigint`);
    await knex.raw(`alter table ${table} alter column audit_seq set default nextval('audit_seq')`);
    await knex.raw(`create index ${table}_audit_seq_idx on ${table} (audit_seq) where audit_seq is not null`);
  }
  await knex.schema.createTable('audit_export_cursors', (t) => {
    t.text('sink').primary({ constraintName: 'audit_export_cursors_pkey' });
    t.bigInteger('position').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "comment on table audit_export_cursors is 'Per audit sink (otlp, file, webhook): the highest audit_seq delivered; export resumes after it.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_export_cursors');
  for (const table of ['call_records', 'activity_log']) {
    await knex.raw(`drop index if exists ${table}_audit_seq_idx`);
    await knex.raw(`alter table ${table} drop column audit_seq`);
  }
  await knex.raw('drop sequence audit_seq');
}
