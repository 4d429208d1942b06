import { Title } from '@mantine/core';

// Placeholder until the screen is built (issue 41).
export function KnowledgePage() {
  return <Title order={1}>Knowledge</Title>;
}
