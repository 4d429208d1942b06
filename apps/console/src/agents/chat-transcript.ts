/** One tool call of an agent run as its stream shows it: after the call, with its observation. */
export interface ChatToolCall {
  id: string;
  tool: string;
  toolType: string;
  input: unknown;
  observation: string;
}

/** What an assistant turn shows, in the order it streamed: reasoning, answer text and tool calls. */
export type ChatPart = { kind: 'reasoning'; text: string } | { kind: 'response'; text: string } | { kind: 'tool'; call: ChatToolCall };

export interface UserTurn {
  role: 'user';
  text: string;
  attachments: string[];
}

export interface AssistantTurn {
  role: 'assistant';
  parts: ChatPart[];
  requestId: string | null;
  model: string | null;
  /** The stream ended: `[DONE]`, an error event, or the client stopped it. */
  finished: boolean;
  stopReason: string | null;
  totalTokens: number | null;
  /** An `error` event's message and code. */
  error: { message: string; code: string } | null;
}

export type ChatTurn = UserTurn | AssistantTurn;

export function newAssistantTurn(): AssistantTurn {
  return { role: 'assistant', parts: [], requestId: null, model: null, finished: false, stopReason: null, totalTokens: null, error: null };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The assistant turn after one event of `POST /v1/agent/invoke` with `streaming: true`: text
 * fragments are appended to the last part of their kind when it is the last part (a tool call
 * in between starts a new one, so the order the tool loop ran in stays visible), a `tool` event
 * adds the call with its observation, `usage` notes the stop reason and tokens, an `error`
 * event or `[DONE]` ends it. Anything else is ignored.
 */
export function applyAgentEvent(turn: AssistantTurn, event: { event: string; data: unknown }): AssistantTurn {
  if (event.data === '[DONE]') return { ...turn, finished: true };
  if (!isRecord(event.data)) return turn;
  const data = event.data;
  const base: AssistantTurn = {
    ...turn,
    requestId: turn.requestId ?? (text(data.request_id) || null),
    model: typeof data.model === 'string' ? data.model : turn.model,
  };
  switch (data.type) {
    case 'reasoning':
    case 'response': {
      const fragment = text(data.response);
      if (fragment === '') return base;
      const last = base.parts.at(-1);
      if (last && last.kind === data.type)
        return { ...base, parts: [...base.parts.slice(0, -1), { kind: last.kind, text: last.text + fragment }] };
      return { ...base, parts: [...base.parts, { kind: data.type, text: fragment }] };
    }
    case 'tool':
      return {
        ...base,
        parts: [
          ...base.parts,
          {
            kind: 'tool',
            call: {
              id: text(data.tool_id),
              tool: text(data.tool),
              toolType: text(data.tool_type),
              input: data.tool_input ?? null,
              observation: text(data.observation),
            },
          },
        ],
      };
    case 'usage': {
      const usage = isRecord(data.usage) ? data.usage : {};
      return {
        ...base,
        stopReason: text(data.stop_reason) || null,
        totalTokens: typeof usage.total_tokens === 'number' ? usage.total_tokens : null,
      };
    }
    case 'error':
      return { ...base, finished: true, error: { message: text(data.message) || text(data.error), code: text(data.error_code) } };
    default:
      return base;
  }
}

/** The answer text of a turn (its `response` parts joined), as a screen reader is told it once the turn ends. */
export function answerText(turn: AssistantTurn): string {
  return turn.parts
    .filter((part): part is { kind: 'response'; text: string } => part.kind === 'response')
    .map((part) => part.text)
    .join('');
}

/**
 * The attachment URLs typed in a box, one per line or separated by spaces or commas; the
 * agent service checks each (https only, supported types, at most 5) and names the bad one.
 */
export function attachmentUrls(input: string): string[] {
  return input
    .split(/[\s,]+/)
    .map((url) => url.trim())
    .filter((url) => url.length > 0);
}

/** A fresh thread id for the playground: readable, and unlikely to meet a caller's own. */
export function newThreadId(random: () => string = () => crypto.randomUUID()): string {
  return `console-${random().slice(0, 8)}`;
}

/** The pretty JSON of a tool call's input or observation (an observation is usually JSON text). */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}
