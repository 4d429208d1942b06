import { Button, Group, Text } from '@mantine/core';
import { useState } from 'react';

/**
 * Paging through a list route that takes a `before` cursor (the last id of the page before, D92):
 * the cursors of every page shown so far, so "Newer" goes back without asking the API for a count.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    /** The current page's `before` cursor (undefined on the first page). */
    before: cursors.at(-1),
    page: cursors.length + 1,
    newer: () => setCursors((list) => list.slice(0, -1)),
    older: (lastId: string) => setCursors((list) => [...list, lastId]),
    /** Back to the first page (after adding a row, which is the newest). */
    first: () => setCursors([]),
  };
}

/** The Newer / Older buttons under a paged table, in a navigation landmark named after what is paged. */
export function CursorPager({
  pages,
  label,
  lastId,
  full,
  newerLabel = 'Newer',
  olderLabel = 'Older',
}: {
  pages: ReturnType<typeof useCursorPages>;
  /** What is paged, for the landmark's name ("Pages of <label>"). */
  label: string;
  /** The last row's id on this page: the next page's cursor. */
  lastId: string | undefined;
  /** Whether this page is full (a shorter page is the last one) and is not a placeholder. */
  full: boolean;
  newerLabel?: string;
  olderLabel?: string;
}) {
  return (
    <Group justify="space-between" component="nav" aria-label={`Pages of ${label}`}>
      <Button variant="default" disabled={pages.page === 1} onClick={pages.newer}>
        {newerLabel}
      </Button>
      <Text size="sm">Page {pages.page}</Text>
      <Button variant="default" disabled={!full || lastId === undefined} onClick={() => lastId !== undefined && pages.older(lastId)}>
        {olderLabel}
      </Button>
    </Group>
  );
}
