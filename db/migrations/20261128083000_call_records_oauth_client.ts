import type { Knex } from 'knex';

/**
 * A call made with an access token of Toolgate's own authorization server names the OAuth client
 * the token was issued to, so the audit trail says which key or which client acted for the user.
 * Text, not a reference: a client id may be a metadata document URL (CIMD), and the record must
 * outlive the client's registration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('call_records', (t) => {
    t.text('oauth_client_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('call_records', (t) => {
    t.dropColumn('oauth_client_id');
  });
}
