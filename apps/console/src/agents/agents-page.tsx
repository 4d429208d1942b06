import { Anchor, Button, Group, Modal, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { apiGet, apiRequest } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import { useWorkspacePath } from '../auth/workspace';
import { agentBody, EMPTY_AGENT_FORM, type AgentRow } from './agent-form';
import { AgentFormFields } from './agent-form-fields';
import { DeleteButton } from './delete-button';

/** The workspace's agents (`GET …/agents`, oldest first), a create form, and a delete per row. */
export function AgentsPage() {
  const { key } = useSession();
  const path = useWorkspacePath();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [creating, { open, close }] = useDisclosure(false);
  const agents = useQuery({
    queryKey: ['agents', key],
    queryFn: ({ signal }) => apiGet<{ agents: AgentRow[] }>(key ?? '', path('agents'), signal).then((answer) => answer.agents),
    enabled: key !== null,
  });
  const rows = agents.data ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Agents</Title>
        <Button onClick={open}>New agent</Button>
      </Group>
      {agents.isError && <ApiErrorAlert error={agents.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Agents table' }}>
        <Table striped highlightOnHover aria-busy={agents.isFetching} data-testid="agents-table">
          <Table.Caption>{agents.isPending ? 'Loading agents…' : `${rows.length} agent(s), oldest first`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Model</Table.Th>
              <Table.Th scope="col">Description</Table.Th>
              <Table.Th scope="col">Updated</Table.Th>
              <Table.Th scope="col">
                <Text span size="sm" fw={700}>
                  Actions
                </Text>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((agent) => (
              <Table.Tr key={agent.id} data-testid="agent-row">
                <Table.Td>
                  <Anchor renderRoot={(props) => <Link {...props} to="/agents/$agentId" params={{ agentId: agent.id }} />}>
                    {agent.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {agent.llm_model}
                  </Text>
                </Table.Td>
                <Table.Td>{agent.description ?? ''}</Table.Td>
                <Table.Td>{new Date(agent.updated_at).toLocaleString()}</Table.Td>
                <Table.Td>
                  <DeleteButton
                    what={`agent ${agent.name}`}
                    onDelete={async () => {
                      await apiRequest(key ?? '', 'DELETE', path(`agents/${agent.id}`));
                      await queryClient.invalidateQueries({ queryKey: ['agents'] });
                    }}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Modal opened={creating} onClose={close} title="New agent" size="lg">
        <AgentFormFields
          label="New agent"
          initial={EMPTY_AGENT_FORM}
          submitLabel="Create agent"
          onSubmit={async (values) => {
            const created = await apiRequest<{ agent: AgentRow }>(key ?? '', 'POST', path('agents'), agentBody(values, false));
            await queryClient.invalidateQueries({ queryKey: ['agents'] });
            close();
            await navigate({ to: '/agents/$agentId', params: { agentId: created.agent.id } });
          }}
        />
      </Modal>
    </Stack>
  );
}
