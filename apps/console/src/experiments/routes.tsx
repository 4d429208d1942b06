import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { ExperimentsPage } from './experiments-page';

export const experimentsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/experiments', component: ExperimentsPage });

export const experimentsRoutes = [experimentsRoute] as const;
