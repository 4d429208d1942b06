import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { DatasetPage } from './dataset-page';
import { ExperimentRunPage } from './experiment-run-page';
import { ExperimentsPage } from './experiments-page';
import { parsePageSearch } from './page-search';

export const experimentsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/experiments', component: ExperimentsPage });
export const datasetRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/experiments/datasets/$datasetId',
  validateSearch: parsePageSearch,
  component: DatasetPage,
});
export const experimentRunRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/experiments/runs/$runId',
  validateSearch: parsePageSearch,
  component: ExperimentRunPage,
});

export const experimentsRoutes = [experimentsRoute, datasetRoute, experimentRunRoute] as const;
