import { createRootRoute } from '@tanstack/react-router';
import { Layout } from './layout';

/** The root of every screen's route: each area's routes.tsx hangs its routes under it. */
export const rootRoute = createRootRoute({ component: Layout });
