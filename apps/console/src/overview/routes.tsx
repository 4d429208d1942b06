import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { parseOverviewSearch } from './overview-series';

export const overviewRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/overview',
  validateSearch: parseOverviewSearch,
  // The charts (recharts) load with this screen only, in a chunk of their own.
  component: lazyRouteComponent(() => import('./overview-page'), 'OverviewPage'),
});

export const overviewRoutes = [overviewRoute] as const;
