import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { RunDetailPage } from './run-detail-page';
import { RunsPage } from './runs-page';
import { parseRunsSearch } from './runs-search';

export const runsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/runs',
  validateSearch: parseRunsSearch,
  component: RunsPage,
});

/** One run: its inputs and output, model attempts, workflow steps, tool calls, callbacks and events. */
export const runDetailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/runs/$requestId',
  component: RunDetailPage,
});

export const runsRoutes = [runsRoute, runDetailRoute] as const;
