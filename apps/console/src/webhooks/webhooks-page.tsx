import { Title } from '@mantine/core';

// Placeholder until the screen is built (issue 41).
export function WebhooksPage() {
  return <Title order={1}>Webhooks</Title>;
}
