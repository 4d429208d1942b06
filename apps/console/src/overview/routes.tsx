import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { OverviewPage } from './overview-page';
import { parseOverviewSearch } from './overview-series';

export const overviewRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/overview',
  validateSearch: parseOverviewSearch,
  component: OverviewPage,
});

export const overviewRoutes = [overviewRoute] as const;
