import { Anchor, Button, Checkbox, Code, Group, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { apiGet, apiRequest } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import { useWorkspacePath } from '../auth/workspace';
import { agentBody, formOfAgent, type AgentRow } from './agent-form';
import { AgentFormFields } from './agent-form-fields';
import { AgentChat } from './agent-chat';
import { DeleteButton } from './delete-button';

const route = getRouteApi('/agents/$agentId');

/** One agent: the chat playground, its settings, the knowledge bases it searches and its webhook secret. */
export function AgentPage() {
  const { agentId } = route.useParams();
  const { key } = useSession();
  const path = useWorkspacePath();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: ({ signal }) => apiGet<{ agent: AgentRow }>(key ?? '', path(`agents/${agentId}`), signal).then((answer) => answer.agent),
    enabled: key !== null,
  });
  return (
    <Stack>
      <Anchor component={Link} to="/agents" size="sm">
        ← All agents
      </Anchor>
      {agent.isError && <ApiErrorAlert error={agent.error} />}
      {agent.isPending && <Loader aria-label="Loading the agent" />}
      {agent.data && (
        <>
          <Group justify="space-between">
            <Title order={1}>{agent.data.name}</Title>
            <DeleteButton
              size="sm"
              what={`agent ${agent.data.name}`}
              onDelete={async () => {
                await apiRequest(key ?? '', 'DELETE', path(`agents/${agentId}`));
                await queryClient.invalidateQueries({ queryKey: ['agents'] });
                await navigate({ to: '/agents' });
              }}
            />
          </Group>
          <Text size="sm">
            Model <Code>{agent.data.llm_model}</Code> · id <Code>{agent.data.id}</Code>
          </Text>
          <Tabs defaultValue="chat" keepMounted>
            <Tabs.List>
              <Tabs.Tab value="chat">Chat</Tabs.Tab>
              <Tabs.Tab value="settings">Settings</Tabs.Tab>
              <Tabs.Tab value="knowledge">Knowledge bases</Tabs.Tab>
              <Tabs.Tab value="webhook">Webhook secret</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="chat" pt="md">
              <AgentChat agentId={agentId} />
            </Tabs.Panel>
            <Tabs.Panel value="settings" pt="md">
              <AgentFormFields
                key={agent.data.updated_at}
                label="Agent settings"
                initial={formOfAgent(agent.data)}
                submitLabel="Save agent"
                onSubmit={async (values) => {
                  const saved = await apiRequest<{ agent: AgentRow }>(
                    key ?? '',
                    'PATCH',
                    path(`agents/${agentId}`),
                    agentBody(values, true),
                  );
                  queryClient.setQueryData(['agent', agentId], saved.agent);
                  await queryClient.invalidateQueries({ queryKey: ['agents'] });
                }}
              />
            </Tabs.Panel>
            <Tabs.Panel value="knowledge" pt="md">
              <AgentKnowledgeBases agentId={agentId} />
            </Tabs.Panel>
            <Tabs.Panel value="webhook" pt="md">
              <AgentWebhookSecret agentId={agentId} />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
    </Stack>
  );
}

interface KnowledgeBaseName {
  id: string;
  name: string;
}

/** `GET/PUT /v1/private/agents/{id}/knowledge_bases`: which of the workspace's knowledge bases its knowledge_search tool searches. */
function AgentKnowledgeBases({ agentId }: { agentId: string }) {
  const { key } = useSession();
  const path = useWorkspacePath();
  const attached = useQuery({
    queryKey: ['agent-knowledge-bases', agentId],
    queryFn: ({ signal }) =>
      apiGet<{ knowledge_bases: { knowledge_base_ids: string[] } }>(
        key ?? '',
        `/v1/private/agents/${agentId}/knowledge_bases`,
        signal,
      ).then((answer) => answer.knowledge_bases.knowledge_base_ids),
    enabled: key !== null,
  });
  const all = useQuery({
    queryKey: ['knowledge-bases', key],
    queryFn: ({ signal }) =>
      apiGet<{ knowledge_bases: KnowledgeBaseName[] }>(key ?? '', path('knowledge_bases'), signal).then((answer) => answer.knowledge_bases),
    enabled: key !== null,
  });
  if (attached.isError) return <ApiErrorAlert error={attached.error} />;
  if (all.isError) return <ApiErrorAlert error={all.error} />;
  if (!attached.data || !all.data) return <Loader aria-label="Loading knowledge bases" />;
  return <KnowledgeBaseChoice agentId={agentId} initial={attached.data} knowledgeBases={all.data} />;
}

function KnowledgeBaseChoice({
  agentId,
  initial,
  knowledgeBases,
}: {
  agentId: string;
  initial: string[];
  knowledgeBases: KnowledgeBaseName[];
}) {
  const { key } = useSession();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const save = async () => {
    setBusy(true);
    setFailure(null);
    setSaved('');
    try {
      const answer = await apiRequest<{ knowledge_bases: { knowledge_base_ids: string[] } }>(
        key ?? '',
        'PUT',
        `/v1/private/agents/${agentId}/knowledge_bases`,
        { knowledge_base_ids: chosen },
      );
      setSaved(`Saved: the agent searches ${answer.knowledge_bases.knowledge_base_ids.length} knowledge base(s).`);
      queryClient.setQueryData(['agent-knowledge-bases', agentId], answer.knowledge_bases.knowledge_base_ids);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      <Checkbox.Group
        label="Knowledge bases the agent's knowledge_search tool searches"
        description="At most 10; the tool is offered on models that can call tools"
        value={chosen}
        onChange={setChosen}
      >
        <Stack gap="xs" mt="xs">
          {knowledgeBases.length === 0 && <Text size="sm">The workspace has no knowledge bases yet.</Text>}
          {knowledgeBases.map((knowledgeBase) => (
            <Checkbox key={knowledgeBase.id} value={knowledgeBase.id} label={knowledgeBase.name} />
          ))}
        </Stack>
      </Checkbox.Group>
      <Group>
        <Button onClick={() => void save()} loading={busy}>
          Save knowledge bases
        </Button>
      </Group>
      <Text size="sm" role="status">
        {saved}
      </Text>
      {failure !== null && <ApiErrorAlert error={failure} />}
    </Stack>
  );
}

interface WebhookSecretView {
  agent_id: string;
  webhook_secret: string;
  previous_secret_expires_at: string | null;
}

/** The agent's webhook secret, shown on request (it is a credential), and its rotation with the default overlap. */
function AgentWebhookSecret({ agentId }: { agentId: string }) {
  const { key } = useSession();
  const [secret, setSecret] = useState<WebhookSecretView | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const run = async (method: 'GET' | 'POST') => {
    setBusy(true);
    setFailure(null);
    try {
      const path = `/v1/private/agents/${agentId}/webhook_secret${method === 'POST' ? '/rotate' : ''}`;
      const answer = await apiRequest<{ webhook_secret: WebhookSecretView }>(key ?? '', method, path, method === 'POST' ? {} : undefined);
      setSecret(answer.webhook_secret);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      <Text size="sm">
        Webhook triggers (<Code>POST /v1/agent/webhooks/{agentId}</Code>) present this secret. Rotating keeps the old one valid for the
        configured overlap.
      </Text>
      <Group>
        <Button variant="default" loading={busy} onClick={() => void run('GET')}>
          Show secret
        </Button>
        <Button variant="default" loading={busy} onClick={() => void run('POST')}>
          Rotate secret
        </Button>
      </Group>
      {secret && (
        <Stack gap={4} data-testid="webhook-secret">
          <Text size="sm">
            Secret: <Code>{secret.webhook_secret}</Code>
          </Text>
          {secret.previous_secret_expires_at && (
            <Text size="sm">The previous secret works until {new Date(secret.previous_secret_expires_at).toLocaleString()}.</Text>
          )}
        </Stack>
      )}
      {failure !== null && <ApiErrorAlert error={failure} />}
    </Stack>
  );
}
