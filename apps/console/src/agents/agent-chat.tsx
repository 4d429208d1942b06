import {
  Badge,
  Box,
  Button,
  Code,
  Group,
  NativeSelect,
  Paper,
  ScrollArea,
  Stack,
  Text,
  Textarea,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { useRef, useState, type FormEvent } from 'react';
import { apiStream } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import {
  answerText,
  applyAgentEvent,
  attachmentUrls,
  newAssistantTurn,
  newThreadId,
  prettyJson,
  type AssistantTurn,
  type ChatToolCall,
  type ChatTurn,
} from './chat-transcript';

/**
 * A chat with one agent through `POST /v1/agent/invoke` with `streaming: true`: the answer is
 * drawn fragment by fragment, each tool call of the loop shown where it happened with its input
 * and observation. Threads are the API's `thread_id`s: the agent service keeps each one's turns
 * and the next message resumes it; this page shows what was said in it since it was opened.
 */
export function AgentChat({ agentId }: { agentId: string }) {
  const { key } = useSession();
  const [threads, setThreads] = useState<string[]>(() => [newThreadId()]);
  const [thread, setThread] = useState(threads[0]);
  const [transcripts, setTranscripts] = useState<Record<string, ChatTurn[]>>({});
  const [message, setMessage] = useState('');
  const [attachments, setAttachments] = useState('');
  const [resume, setResume] = useState('');
  const [failure, setFailure] = useState<unknown>(null);
  /** What a screen reader is told: that an answer started, each tool call, then the whole answer once. */
  const [announcement, setAnnouncement] = useState('');
  const abort = useRef<AbortController | null>(null);
  const [streaming, setStreaming] = useState(false);
  const turns = transcripts[thread] ?? [];

  const updateLast = (threadId: string, update: (turn: AssistantTurn) => AssistantTurn) =>
    setTranscripts((all) => {
      const list = all[threadId] ?? [];
      const last = list.at(-1);
      if (!last || last.role !== 'assistant') return all;
      return { ...all, [threadId]: [...list.slice(0, -1), update(last)] };
    });

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = message.trim();
    if (text === '' || streaming) return;
    const urls = attachmentUrls(attachments);
    const threadId = thread;
    setFailure(null);
    setMessage('');
    setAttachments('');
    setTranscripts((all) => ({
      ...all,
      [threadId]: [...(all[threadId] ?? []), { role: 'user', text, attachments: urls }, newAssistantTurn()],
    }));
    setAnnouncement('The agent is answering…');
    const controller = new AbortController();
    abort.current = controller;
    setStreaming(true);
    let turn = newAssistantTurn();
    try {
      const body = { agent: agentId, message: text, thread_id: threadId, streaming: true, ...(urls.length > 0 && { attachments: urls }) };
      for await (const streamed of apiStream(key ?? '', 'POST', '/v1/agent/invoke', body, controller.signal)) {
        const before = turn.parts.length;
        turn = applyAgentEvent(turn, streamed);
        const added = turn.parts.at(-1);
        if (turn.parts.length > before && added?.kind === 'tool') setAnnouncement(`Tool call: ${added.call.tool}`);
        const next = turn;
        updateLast(threadId, () => next);
      }
      setAnnouncement(turn.error ? `The run failed: ${turn.error.message}` : `The agent answered: ${answerText(turn)}`);
    } catch (error) {
      if (controller.signal.aborted) setAnnouncement('Stopped.');
      else {
        setFailure(error);
        setAnnouncement('The message was refused.');
      }
      // A refused message never reached the thread: its turns leave the transcript.
      if (!controller.signal.aborted) setTranscripts((all) => ({ ...all, [threadId]: (all[threadId] ?? []).slice(0, -2) }));
    } finally {
      updateLast(threadId, (last) => ({ ...last, finished: true }));
      setStreaming(false);
      abort.current = null;
    }
  };

  const startThread = (id: string) => {
    setThreads((list) => (list.includes(id) ? list : [...list, id]));
    setThread(id);
    setFailure(null);
  };

  return (
    <Stack>
      <Group align="end" wrap="wrap">
        <NativeSelect
          label="Thread"
          value={thread}
          disabled={streaming}
          onChange={(event) => setThread(event.currentTarget.value)}
          data={threads}
          data-testid="thread-select"
        />
        <Button variant="default" disabled={streaming} onClick={() => startThread(newThreadId())}>
          New thread
        </Button>
        <form
          aria-label="Resume a thread"
          onSubmit={(event) => {
            event.preventDefault();
            if (resume.trim() !== '') startThread(resume.trim());
            setResume('');
          }}
        >
          <Group align="end" gap="xs">
            <TextInput label="Thread id to resume" value={resume} onChange={(event) => setResume(event.currentTarget.value)} />
            <Button type="submit" variant="default" disabled={streaming}>
              Resume
            </Button>
          </Group>
        </form>
      </Group>
      <ScrollArea.Autosize mah={520} type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Conversation' }}>
        <Stack gap="sm" data-testid="chat-transcript" p={2}>
          {turns.length === 0 && (
            <Text size="sm" c="dimmed">
              No messages in thread {thread} yet on this page. The agent service keeps the thread: a message here resumes it.
            </Text>
          )}
          {turns.map((turn, index) =>
            turn.role === 'user' ? (
              <UserBubble key={index} text={turn.text} attachments={turn.attachments} />
            ) : (
              <AssistantBubble key={index} turn={turn} />
            ),
          )}
        </Stack>
      </ScrollArea.Autosize>
      <VisuallyHidden role="status" aria-live="polite" data-testid="chat-announcement">
        {announcement}
      </VisuallyHidden>
      {failure !== null && <ApiErrorAlert error={failure} />}
      <form onSubmit={(event) => void send(event)} aria-label="Send a message">
        <Stack gap="xs">
          <Textarea
            label="Message"
            autosize
            minRows={2}
            value={message}
            onChange={(event) => setMessage(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void send(event);
            }}
            description="Ctrl+Enter sends"
          />
          <TextInput
            label="Attachment URLs"
            description="https:// links to documents (.pdf .docx .csv .xlsx .txt .md) or images, separated by spaces; at most 5"
            value={attachments}
            onChange={(event) => setAttachments(event.currentTarget.value)}
          />
          <Group>
            <Button type="submit" loading={streaming} disabled={message.trim() === ''}>
              Send
            </Button>
            {streaming && (
              <Button variant="default" onClick={() => abort.current?.abort()}>
                Stop
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

function UserBubble({ text, attachments }: { text: string; attachments: string[] }) {
  return (
    <Paper withBorder p="sm" bg="gray.0" data-testid="user-turn" ml={{ base: 0, sm: 'xl' }}>
      <Text size="xs" fw={700}>
        You
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
        {text}
      </Text>
      {attachments.map((url) => (
        <Text key={url} size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
          Attached: {url}
        </Text>
      ))}
    </Paper>
  );
}

function AssistantBubble({ turn }: { turn: AssistantTurn }) {
  return (
    <Paper withBorder p="sm" data-testid="assistant-turn" aria-busy={!turn.finished} mr={{ base: 0, sm: 'xl' }}>
      <Group gap="xs" justify="space-between">
        <Text size="xs" fw={700}>
          Agent{turn.model ? ` (${turn.model})` : ''}
        </Text>
        {!turn.finished && (
          <Badge variant="outline" color="blue.9" size="sm">
            streaming
          </Badge>
        )}
      </Group>
      <Stack gap={6}>
        {turn.parts.map((part, index) =>
          part.kind === 'tool' ? (
            <ToolCallView key={index} call={part.call} />
          ) : (
            <Text
              key={index}
              size="sm"
              c={part.kind === 'reasoning' ? 'dimmed' : undefined}
              fs={part.kind === 'reasoning' ? 'italic' : undefined}
              style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
              data-testid={part.kind === 'response' ? 'assistant-text' : 'assistant-reasoning'}
            >
              {part.kind === 'reasoning' && <VisuallyHidden>Reasoning: </VisuallyHidden>}
              {part.text}
            </Text>
          ),
        )}
      </Stack>
      {turn.error && (
        <Text size="sm" c="red.9" role="alert">
          The run failed: {turn.error.message} {turn.error.code && <Code>{turn.error.code}</Code>}
        </Text>
      )}
      {turn.finished && turn.requestId && (
        <Text size="xs" c="dimmed" mt={4}>
          Request <Code>{turn.requestId}</Code>
          {turn.totalTokens !== null && ` · ${turn.totalTokens} tokens`}
          {turn.stopReason && ` · ${turn.stopReason}`}
        </Text>
      )}
    </Paper>
  );
}

/** Long JSON lines wrap inside the bubble rather than widening the conversation. */
const WRAPPED = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' } as const;

function ToolCallView({ call }: { call: ChatToolCall }) {
  return (
    <Box data-testid="tool-call" p="xs" style={{ borderLeft: '3px solid var(--mantine-color-violet-8)' }}>
      <Text size="sm" fw={700}>
        Tool call: <Code>{call.tool}</Code>{' '}
        <Badge variant="outline" color="violet.9" size="xs">
          {call.toolType}
        </Badge>
      </Text>
      <Text size="xs" fw={700} mt={4}>
        Input
      </Text>
      <Code block data-testid="tool-input" style={WRAPPED}>
        {prettyJson(call.input)}
      </Code>
      <details>
        <summary>
          <Text span size="xs" fw={700}>
            Observation
          </Text>
        </summary>
        <ScrollArea.Autosize
          mah={240}
          type="auto"
          viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': `Observation of ${call.tool}` }}
        >
          <Code block data-testid="tool-observation" style={WRAPPED}>
            {prettyJson(call.observation)}
          </Code>
        </ScrollArea.Autosize>
      </details>
    </Box>
  );
}
