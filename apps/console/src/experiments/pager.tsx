import { Button, Group, Text } from '@mantine/core';

/** Previous and next page buttons for a list read a page at a time through the API. */
export function Pager({
  label,
  page,
  hasNext,
  total,
  onPage,
}: {
  label: string;
  page: number;
  hasNext: boolean;
  total?: string;
  onPage: (page: number) => void;
}) {
  return (
    <Group justify="space-between" component="nav" aria-label={label}>
      <Button variant="default" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous page
      </Button>
      <Text size="sm">
        Page {page + 1}
        {total ? ` · ${total}` : ''}
      </Text>
      <Button variant="default" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        Next page
      </Button>
    </Group>
  );
}
