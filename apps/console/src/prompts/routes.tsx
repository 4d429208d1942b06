import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { ApplyPage } from './apply-page';
import { PromptsPage } from './prompts-page';
import { parseVariantSearch } from './variant-search';
import { VariantPage } from './variant-page';

export const promptsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/prompts', component: PromptsPage });
export const applyRoute = createRoute({ getParentRoute: () => rootRoute, path: '/prompts/apply', component: ApplyPage });
export const variantRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/prompts/$kind/$deployment/$variant',
  validateSearch: parseVariantSearch,
  component: VariantPage,
});

export const promptsRoutes = [promptsRoute, applyRoute, variantRoute] as const;
