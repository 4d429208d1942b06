import { createRoute, createRouter, redirect } from '@tanstack/react-router';
import { agentsRoutes } from './agents/routes';
import { LoginPage } from './auth/login-page';
import { LANDING_PATH, parseLoginSearch } from './auth/return-path';
import { experimentsRoutes } from './experiments/routes';
import { knowledgeRoutes } from './knowledge/routes';
import { overviewRoutes } from './overview/routes';
import { promptsRoutes } from './prompts/routes';
import { rootRoute } from './root-route';
import { runsRoutes } from './runs/routes';
import { webhooksRoutes } from './webhooks/routes';

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: LANDING_PATH });
  },
});
export const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: parseLoginSearch,
  component: LoginPage,
});

export const router = createRouter({
  routeTree: rootRoute.addChildren([
    indexRoute,
    loginRoute,
    ...overviewRoutes,
    ...runsRoutes,
    ...promptsRoutes,
    ...experimentsRoutes,
    ...agentsRoutes,
    ...knowledgeRoutes,
    ...webhooksRoutes,
  ]),
  basepath: '/console',
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
