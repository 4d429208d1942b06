import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { RunsPage } from './runs-page';
import { parseRunsSearch } from './runs-search';

export const runsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/runs',
  validateSearch: parseRunsSearch,
  component: RunsPage,
});

export const runsRoutes = [runsRoute] as const;
