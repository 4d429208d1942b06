import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../root-route';
import { WebhooksPage } from './webhooks-page';
import { parseWebhooksSearch } from './webhooks-search';

export const webhooksRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/webhooks',
  validateSearch: parseWebhooksSearch,
  component: WebhooksPage,
});

export const webhooksRoutes = [webhooksRoute] as const;
