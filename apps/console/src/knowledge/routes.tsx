import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { KnowledgeBasePage } from './knowledge-base-page';
import { KnowledgePage } from './knowledge-page';

export const knowledgeRoute = createRoute({ getParentRoute: () => rootRoute, path: '/knowledge', component: KnowledgePage });
export const knowledgeBaseRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/knowledge/$knowledgeBaseId',
  component: KnowledgeBasePage,
});

export const knowledgeRoutes = [knowledgeRoute, knowledgeBaseRoute] as const;
