import type { RunStatus } from './runs-search';

/** Outline badges in shades dark enough for WCAG AA contrast of their text on white. */
export const STATUS_COLORS: Record<RunStatus, string> = {
  queued: 'gray.8',
  running: 'blue.9',
  completed: 'teal.9',
  failed: 'red.9',
  cancelled: 'orange.9',
};

export function statusColor(status: string): string {
  return STATUS_COLORS[status as RunStatus] ?? 'gray.8';
}
