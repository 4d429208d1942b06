import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { KnowledgePage } from './knowledge-page';

export const knowledgeRoute = createRoute({ getParentRoute: () => rootRoute, path: '/knowledge', component: KnowledgePage });

export const knowledgeRoutes = [knowledgeRoute] as const;
