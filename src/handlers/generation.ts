import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listGenerationJobs' | 'createGenerationJob' | 'getGenerationJob' | 'cancelGenerationJob';

/** AI generation of MCP servers (asynchronous jobs). */
export function createGenerationHandlers({ services: { generation } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listGenerationJobs: async ({ query }) => ({ status: 200, body: await generation.list(query) }),
    createGenerationJob: async ({ body }) => {
      const job = await generation.create(body);
      return { status: 202, body: job, headers: { Location: `/api/v1/servers/generate/${job.job_id}` } };
    },
    getGenerationJob: async ({ params }) => ({ status: 200, body: await generation.get(params.job_id) }),
    cancelGenerationJob: async ({ params }) => ({ status: 200, body: await generation.cancel(params.job_id) }),
  };
}
