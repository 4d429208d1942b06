import { Title } from '@mantine/core';

// Placeholder until the screen is built (issue 41).
export function OverviewPage() {
  return <Title order={1}>Overview</Title>;
}
