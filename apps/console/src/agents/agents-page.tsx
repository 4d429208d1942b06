import { Title } from '@mantine/core';

// Placeholder until the screen is built (issue 41).
export function AgentsPage() {
  return <Title order={1}>Agents</Title>;
}
