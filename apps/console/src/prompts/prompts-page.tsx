import { Title } from '@mantine/core';

// Placeholder until the screen is built (issue 41).
export function PromptsPage() {
  return <Title order={1}>Prompts</Title>;
}
