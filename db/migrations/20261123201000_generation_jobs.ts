import type { Knex } from 'knex';

/**
 * Server generation jobs: the job's request, its progress and reasoning log, and its
 * outcome. A running job holds a lease (`lease_owner`, `lease_expires_at`) that its runner renews;
 * a job whose lease ran out (the process died) is marked failed ("interrupted") by whichever
 * instance sweeps next, so no job stays `running` forever.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('generation_jobs', (t) => {
    t.uuid('id').primary({ constraintName: 'generation_jobs_pkey' });
    t.text('status').notNullable();
    t.text('current_phase').notNullable();
    t.integer('progress_percent').notNullable().defaultTo(0);
    t.text('progress_message');
    t.integer('tools_completed').notNullable().defaultTo(0);
    t.integer('tools_total').notNullable().defaultTo(0);
    t.text('description').notNullable();
    t.text('server_name');
    // The name was given by the admin (kept as is) rather than chosen during design.
    t.boolean('server_name_given').notNullable().defaultTo(false);
    t.uuid('provider_id');
    t.boolean('auto_deploy').notNullable().defaultTo(true);
    t.text('error_message');
    t.jsonb('reasoning_log').notNullable().defaultTo('[]');
    t.uuid('mcp_server_id');
    t.foreign('mcp_server_id', 'generation_jobs_mcp_server_id_fkey').references('mcp_servers.id').onDelete('SET NULL');
    t.jsonb('deployed_server');
    t.uuid('created_by');
    t.text('lease_owner');
    t.timestamp('lease_expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['status', 'created_at'], 'generation_jobs_status_created_at_idx');
    t.index(['created_at'], 'generation_jobs_created_at_idx');
  });
  await knex.raw(
    "comment on table generation_jobs is 'AI server generation jobs: request, progress, reasoning log, lease of the running instance, outcome.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('generation_jobs');
}
