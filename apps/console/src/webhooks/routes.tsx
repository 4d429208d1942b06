import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { WebhooksPage } from './webhooks-page';

export const webhooksRoute = createRoute({ getParentRoute: () => rootRoute, path: '/webhooks', component: WebhooksPage });

export const webhooksRoutes = [webhooksRoute] as const;
