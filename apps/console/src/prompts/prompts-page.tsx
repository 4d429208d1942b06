import { Anchor, Badge, Button, Group, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import {
  deploymentsPath,
  splitText,
  type DeploymentKind,
  type PromptDeploymentSummary,
  type WorkflowDeploymentSummary,
} from './prompts-api';

/** The workspace's prompt and workflow deployments with their variants; each variant opens its versions and releases. */
export function PromptsPage() {
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Prompts and workflows</Title>
        <Button component={Link} to="/prompts/apply">
          Apply YAML
        </Button>
      </Group>
      <DeploymentsTable kind="prompts" title="Prompt deployments" />
      <DeploymentsTable kind="workflows" title="Workflow deployments" />
    </Stack>
  );
}

type Summary = PromptDeploymentSummary | WorkflowDeploymentSummary;

function DeploymentsTable({ kind, title }: { kind: DeploymentKind; title: string }) {
  const { key } = useSession();
  const deployments = useQuery<Summary[]>({
    queryKey: ['deployments', kind],
    queryFn: ({ signal }) =>
      apiGet<Record<string, Summary[]>>(key ?? '', deploymentsPath(kind), signal).then((answer) => answer[kind] ?? []),
    enabled: key !== null,
  });
  const list = deployments.data ?? [];
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        {title}
      </Title>
      {deployments.isError && <ApiErrorAlert error={deployments.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': title }}>
        <Table striped data-testid={`${kind}-table`}>
          <Table.Caption>
            {deployments.isPending
              ? `Loading ${kind}…`
              : `${list.length} deployment(s); open a variant for its versions${kind === 'prompts' ? ' and releases' : ''}`}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Deployment</Table.Th>
              <Table.Th scope="col">Variant</Table.Th>
              <Table.Th scope="col">Deployed version</Table.Th>
              <Table.Th scope="col">{kind === 'prompts' ? 'Model' : 'Inputs'}</Table.Th>
              {kind === 'prompts' && <Table.Th scope="col">Split</Table.Th>}
              <Table.Th scope="col">Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.flatMap((deployment) =>
              deployment.variants.map((variant, index) => (
                <Table.Tr key={`${deployment.deployment}/${variant.name}`} data-testid={`${kind}-variant-row`}>
                  <Table.Td>{index === 0 ? <Text fw={600}>{deployment.deployment}</Text> : ''}</Table.Td>
                  <Table.Td>
                    <Anchor
                      renderRoot={(props) => (
                        <Link
                          {...props}
                          to="/prompts/$kind/$deployment/$variant"
                          params={{ kind: kind, deployment: deployment.deployment, variant: variant.name }}
                        />
                      )}
                    >
                      {variant.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    {variant.version === null ? (
                      <Badge color="gray.8" variant="outline">
                        none
                      </Badge>
                    ) : (
                      variant.version
                    )}
                  </Table.Td>
                  <Table.Td>
                    {'model' in variant
                      ? (variant.model ?? '')
                      : Object.keys((variant as { inputs: Record<string, unknown> }).inputs).join(', ')}
                  </Table.Td>
                  {kind === 'prompts' && (
                    <Table.Td data-testid="variant-split">{'split' in variant && variant.split ? splitText(variant.split) : ''}</Table.Td>
                  )}
                  <Table.Td>{new Date(deployment.created_at).toLocaleString()}</Table.Td>
                </Table.Tr>
              )),
            )}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Stack>
  );
}
