import { AppShell, Burger, Button, Group, NavLink, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { createRootRoute, createRoute, createRouter, Link, Navigate, Outlet, redirect, useLocation } from '@tanstack/react-router';
import { LoginPage } from './auth/login-page';
import { useSession } from './auth/session';
import { RunsPage } from './runs/runs-page';
import { parseRunsSearch } from './runs/runs-search';

function Layout() {
  const { key, logOut } = useSession();
  const location = useLocation();
  const [opened, { toggle, close }] = useDisclosure();
  if (location.pathname !== '/login' && key === null) return <Navigate to="/login" />;
  if (key === null) return <Outlet />;
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={2} size="h4">
              Waggle console
            </Title>
          </Group>
          <Button variant="default" size="xs" onClick={logOut}>
            Log out
          </Button>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Screens">
        <NavLink component={Link} to="/runs" label="Runs" active={location.pathname === '/runs'} onClick={close} />
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

const rootRoute = createRootRoute({ component: Layout });
const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/runs' });
  },
});
const loginRoute = createRoute({ getParentRoute: () => rootRoute, path: '/login', component: LoginPage });
const runsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/runs', validateSearch: parseRunsSearch, component: RunsPage });

export const router = createRouter({
  routeTree: rootRoute.addChildren([indexRoute, loginRoute, runsRoute]),
  basepath: '/console',
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
