import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { PromptsPage } from './prompts-page';

export const promptsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/prompts', component: PromptsPage });

export const promptsRoutes = [promptsRoute] as const;
