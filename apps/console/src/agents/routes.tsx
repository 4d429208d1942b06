import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { AgentsPage } from './agents-page';

export const agentsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/agents', component: AgentsPage });

export const agentsRoutes = [agentsRoute] as const;
