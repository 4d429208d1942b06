import '@mantine/core/styles.css';
import { createTheme, MantineProvider, Modal, type CSSVariablesResolver } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { router } from './app';
import { SessionProvider } from './auth/session';

// An API error is shown at once: retrying a 401 or a 422 only delays it.
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
// Darker primary shades than the default, for WCAG AA contrast of white text on buttons; every
// dialog's close button named (Mantine's has only an icon), unless a dialog names it itself.
const theme = createTheme({
  primaryShade: 8,
  components: { Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }) },
});
// Dimmed text (descriptions, captions) one shade darker than Mantine's: gray 6 on white is below AA.
const resolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: {},
});

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <MantineProvider theme={theme} cssVariablesResolver={resolver}>
        <QueryClientProvider client={queryClient}>
          <SessionProvider>
            <RouterProvider router={router} />
          </SessionProvider>
        </QueryClientProvider>
      </MantineProvider>
    </StrictMode>,
  );
