import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { AgentPage } from './agent-page';
import { AgentsPage } from './agents-page';

export const agentsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/agents', component: AgentsPage });
export const agentRoute = createRoute({ getParentRoute: () => rootRoute, path: '/agents/$agentId', component: AgentPage });

export const agentsRoutes = [agentsRoute, agentRoute] as const;
