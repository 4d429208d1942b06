import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { OverviewPage } from './overview-page';

export const overviewRoute = createRoute({ getParentRoute: () => rootRoute, path: '/overview', component: OverviewPage });

export const overviewRoutes = [overviewRoute] as const;
