import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listTeams' | 'createTeam' | 'getTeam' | 'updateTeam' | 'deleteTeam' | 'addTeamMember' | 'removeTeamMember';

/** Teams of users, by hand or by OAuth group claims; bundles are shared with them. */
export function createTeamsHandlers({ services: { teams } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listTeams: async ({ query }) => ({ status: 200, body: await teams.list(query) }),
    createTeam: async ({ body }) => ({ status: 201, body: await teams.create(body) }),
    getTeam: async ({ params }) => ({ status: 200, body: await teams.get(params.team_id) }),
    updateTeam: async ({ params, body }) => ({ status: 200, body: await teams.update(params.team_id, body) }),
    deleteTeam: ({ params }) => teams.delete(params.team_id).then(noContent),
    addTeamMember: async ({ params }) => ({ status: 200, body: await teams.addMember(params.team_id, params.user_id) }),
    removeTeamMember: ({ params }) => teams.removeMember(params.team_id, params.user_id).then(noContent),
  };
}
