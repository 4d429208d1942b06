import { AppShell, Burger, Button, Group, Loader, NavLink, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, Navigate, Outlet, useLocation } from '@tanstack/react-router';
import { ApiErrorAlert } from './api/api-error-alert';
import { useSession } from './auth/session';
import { useWorkspaceQuery, WorkspaceProvider } from './auth/workspace';
import { SCREENS } from './screens';

export function Layout() {
  const { key, logOut } = useSession();
  const location = useLocation();
  const [opened, { toggle, close }] = useDisclosure();
  const workspace = useWorkspaceQuery(key);
  // Logged out: the login screen, which comes back to the screen asked for (its path and query).
  if (location.pathname !== '/login' && key === null) return <Navigate to="/login" search={{ redirect: location.href }} replace />;
  if (key === null) return <Outlet />;
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={2} size="h4">
              Waggle console
            </Title>
            {workspace.data && (
              <Text size="sm" visibleFrom="sm" data-testid="workspace-name">
                {workspace.data.workspace.name}
              </Text>
            )}
          </Group>
          <Button variant="default" size="xs" onClick={logOut}>
            Log out
          </Button>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Screens">
        {SCREENS.map((screen) => (
          <NavLink
            key={screen.to}
            component={Link}
            to={screen.to}
            label={screen.label}
            // Filled: white on the primary shade, hovered or not (the light variant's hover fails AA contrast).
            variant="filled"
            active={location.pathname === screen.to || location.pathname.startsWith(`${screen.to}/`)}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        {workspace.isError && <ApiErrorAlert error={workspace.error} />}
        {workspace.isPending && <Loader aria-label="Loading the workspace" />}
        {workspace.data && (
          <WorkspaceProvider value={workspace.data}>
            <Outlet />
          </WorkspaceProvider>
        )}
      </AppShell.Main>
    </AppShell>
  );
}
