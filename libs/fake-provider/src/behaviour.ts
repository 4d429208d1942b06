import { invalidInstance, minimalInstance, type FakeStructuredRequest } from './structured';

/** Token counts the fake reports instead of the ones it would count itself. */
export interface FakeUsageOverrides {
  promptTokens?: number;
  /** Prompt tokens read from the cache (part of promptTokens). */
  cachedTokens?: number;
  /** Prompt tokens written to the cache (part of promptTokens). */
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  completionTokens?: number;
}

/** An HTTP failure answered instead of a completion, in the protocol's own error shape. */
export interface FakeError {
  status: number;
  message?: string;
  /** Sent as `retry-after` on a 429; 1 when unset. */
  retryAfterSeconds?: number;
}

/** One tool call the fake's model makes: the tool's name and the JSON object it passes. */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * One model turn of a scripted tool conversation: tool calls (with optional text before
 * them), or a plain answer. Which turn answers depends on how many rounds of tool results
 * the request already carries, so a client's tool loop walks through the turns in order.
 */
export interface FakeTurn {
  toolCalls?: FakeToolCall[];
  response?: string;
}

/**
 * A structured (JSON) answer instead of the plain `response`. `invalid_once`: the first JSON
 * answer of the model after its behaviour was set fails the schema, every later one passes,
 * as a model that a repair request puts right.
 */
export interface FakeJsonScript {
  answer: 'valid' | 'invalid_once' | 'invalid';
  /** The valid answer; unset, the smallest instance of the request's schema (`{}` without one). */
  value?: unknown;
  /**
   * Valid answers that depend on the request: the first case whose `when` is in the request's
   * last user message answers its `value` instead of `value` (a judge that passes one output
   * and fails another, within one run).
   */
  cases?: FakeJsonCase[];
  /** The invalid answer; unset, the valid one without its first required property. */
  invalidValue?: unknown;
}

/** A valid JSON answer given when `when` is in the request's last user message. */
export interface FakeJsonCase {
  when: string;
  value: unknown;
}

/** How the fake answers a model: server-wide defaults, overridable per model id. */
export interface FakeBehaviour {
  /** The answer text; unset answers `Echo: <last user message text>`. */
  response?: string;
  /** Reasoning text sent before the answer; unset or null sends none. */
  reasoning?: string | null;
  /** Wait before the first byte (streaming) or the whole answer (not streaming). */
  latencyMs: number;
  /** Wait between streamed fragments. */
  tokenDelayMs: number;
  /** Words per streamed fragment. */
  chunkSize: number;
  usage: FakeUsageOverrides;
  error?: FakeError | null;
  /**
   * Break the answer after this many streamed fragments: Anthropic sends an `error` event
   * and closes, OpenAI destroys the socket. A non-streaming request is answered by a
   * destroyed connection, as when a network fails.
   */
  failAfterFragments?: number | null;
  /**
   * The answer of the request that carries N rounds of tool results is `turns[N]`; past the
   * last turn (or unset), the plain `response`.
   */
  turns?: FakeTurn[] | null;
  /** Length of the vectors `/v1/embeddings` answers when the request names no `dimensions`. */
  embeddingDimensions: number;
  /**
   * Accept (and record) the request, then send nothing, not even headers, until the client
   * goes away: a provider that stopped answering, for timeouts and fallbacks.
   */
  hang?: boolean;
  /** Answer JSON instead of the plain `response` (see `FakeJsonScript`). */
  json?: FakeJsonScript | null;
}

export const DEFAULT_BEHAVIOUR: Readonly<FakeBehaviour> = Object.freeze({
  latencyMs: 0,
  tokenDelayMs: 0,
  chunkSize: 1,
  usage: {},
  embeddingDimensions: 256,
});

/** The most vector dimensions `/v1/embeddings` answers, as the largest hosted models do. */
export const MAX_EMBEDDING_DIMENSIONS = 4096;

export function resolveBehaviour(...layers: ReadonlyArray<Partial<FakeBehaviour> | undefined>): FakeBehaviour {
  const merged: FakeBehaviour = { ...DEFAULT_BEHAVIOUR, usage: {} };
  for (const layer of layers) {
    if (!layer) continue;
    Object.assign(merged, layer, { usage: { ...merged.usage, ...layer.usage } });
  }
  return merged;
}

const NUMBER_FIELDS = ['latencyMs', 'tokenDelayMs', 'chunkSize', 'embeddingDimensions'] as const;
const USAGE_FIELDS = ['promptTokens', 'cachedTokens', 'cacheWriteTokens', 'reasoningTokens', 'completionTokens'] as const;
const KNOWN_FIELDS = new Set<string>([
  'response',
  'reasoning',
  'usage',
  'error',
  'failAfterFragments',
  'turns',
  'hang',
  'json',
  ...NUMBER_FIELDS,
]);
const JSON_ANSWERS = ['valid', 'invalid_once', 'invalid'];
const JSON_FIELDS = new Set(['answer', 'value', 'invalidValue', 'cases']);
/** The names OpenAI and Anthropic accept for a function. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Checks a behaviour that arrived as JSON (`PUT /_fake/models/{id}`), so a typo in another
 * process's script fails loudly instead of silently answering with the defaults.
 */
export function parseBehaviour(value: unknown): Partial<FakeBehaviour> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('behaviour must be a JSON object');
  const input = value as Record<string, unknown>;
  const unknownFields = Object.keys(input).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknownFields.length > 0) throw new Error(`unknown behaviour field(s): ${unknownFields.join(', ')}`);
  if (input.response !== undefined && typeof input.response !== 'string') throw new Error('response must be a string');
  if (input.reasoning !== undefined && input.reasoning !== null && typeof input.reasoning !== 'string') {
    throw new Error('reasoning must be a string or null');
  }
  for (const field of NUMBER_FIELDS) {
    if (input[field] !== undefined && !isCount(input[field])) throw new Error(`${field} must be a non-negative integer`);
  }
  if (input.chunkSize === 0) throw new Error('chunkSize must be at least 1');
  if (input.embeddingDimensions === 0 || (input.embeddingDimensions as number) > MAX_EMBEDDING_DIMENSIONS) {
    throw new Error(`embeddingDimensions must be from 1 to ${MAX_EMBEDDING_DIMENSIONS}`);
  }
  if (input.turns !== undefined && input.turns !== null) parseTurns(input.turns);
  if (input.hang !== undefined && typeof input.hang !== 'boolean') throw new Error('hang must be true or false');
  if (input.json !== undefined && input.json !== null) parseJsonScript(input.json);
  if (input.failAfterFragments !== undefined && input.failAfterFragments !== null && !isCount(input.failAfterFragments)) {
    throw new Error('failAfterFragments must be a non-negative integer or null');
  }
  if (input.usage !== undefined) {
    if (typeof input.usage !== 'object' || input.usage === null) throw new Error('usage must be an object');
    const usage = input.usage as Record<string, unknown>;
    for (const [key, count] of Object.entries(usage)) {
      if (!(USAGE_FIELDS as readonly string[]).includes(key)) throw new Error(`unknown usage field: ${key}`);
      if (!isCount(count)) throw new Error(`usage.${key} must be a non-negative integer`);
    }
  }
  if (input.error !== undefined && input.error !== null) {
    const error = input.error as Record<string, unknown>;
    if (typeof error !== 'object' || !Number.isInteger(error.status) || (error.status as number) < 400 || (error.status as number) > 599) {
      throw new Error('error.status must be an HTTP error status (400-599)');
    }
    if (error.message !== undefined && typeof error.message !== 'string') throw new Error('error.message must be a string');
    if (error.retryAfterSeconds !== undefined && !isCount(error.retryAfterSeconds)) {
      throw new Error('error.retryAfterSeconds must be a non-negative integer');
    }
  }
  return input as Partial<FakeBehaviour>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJsonScript(json: unknown): void {
  if (!isPlainObject(json)) throw new Error('json must be an object or null');
  const unknownFields = Object.keys(json).filter((key) => !JSON_FIELDS.has(key));
  if (unknownFields.length > 0) throw new Error(`json has unknown field(s): ${unknownFields.join(', ')}`);
  if (typeof json.answer !== 'string' || !JSON_ANSWERS.includes(json.answer)) {
    throw new Error(`json.answer must be one of ${JSON_ANSWERS.join(', ')}`);
  }
  if (json.cases === undefined) return;
  if (!Array.isArray(json.cases)) throw new Error('json.cases must be an array');
  json.cases.forEach((item: unknown, index) => {
    if (!isPlainObject(item) || typeof item.when !== 'string' || item.when === '' || !('value' in item)) {
      throw new Error(`json.cases[${index}] must be {when: non-empty text, value}`);
    }
  });
}

function parseTurns(turns: unknown): void {
  if (!Array.isArray(turns)) throw new Error('turns must be an array or null');
  turns.forEach((turn: unknown, index) => {
    const where = `turns[${index}]`;
    if (!isPlainObject(turn)) throw new Error(`${where} must be an object`);
    const unknownFields = Object.keys(turn).filter((key) => key !== 'toolCalls' && key !== 'response');
    if (unknownFields.length > 0) throw new Error(`${where} has unknown field(s): ${unknownFields.join(', ')}`);
    if (turn.response !== undefined && typeof turn.response !== 'string') throw new Error(`${where}.response must be a string`);
    if (turn.toolCalls === undefined) {
      if (turn.response === undefined) throw new Error(`${where} needs toolCalls or a response`);
      return;
    }
    if (!Array.isArray(turn.toolCalls) || turn.toolCalls.length === 0) throw new Error(`${where}.toolCalls must be a non-empty array`);
    turn.toolCalls.forEach((call: unknown, callIndex) => {
      const callWhere = `${where}.toolCalls[${callIndex}]`;
      if (!isPlainObject(call)) throw new Error(`${callWhere} must be an object`);
      if (typeof call.name !== 'string' || !TOOL_NAME.test(call.name))
        throw new Error(`${callWhere}.name must be 1-64 letters, digits, _ or -`);
      if (!isPlainObject(call.arguments)) throw new Error(`${callWhere}.arguments must be a JSON object`);
    });
  });
}

/** An image part of a request: a URL, or inline base64 data. */
export type FakeImage = { source: 'url'; url: string } | { source: 'base64'; mediaType: string; data: string };

/** What the fake understood of a request, whichever protocol it came in. */
export interface FakeConversation {
  lastUserText: string;
  /** Rounds of tool results the conversation carries: the index of the scripted turn that answers it. */
  toolRounds: number;
  /** The request offers tools and its tool choice is not `none`: scripted tool calls may be answered. */
  toolsAllowed: boolean;
  /** Image parts of every message, in order. */
  images: FakeImage[];
  /** Words across every message, the default prompt token count. */
  promptWords: number;
  maxTokens?: number;
  stop: string[];
  /** The request asked for a structured answer (how, with which schema); unset when it did not. */
  structured?: FakeStructuredRequest;
}

export type FakeFinish = 'stop' | 'stop_sequence' | 'length' | 'tool_calls';

export interface FakeUsage {
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

/** A tool call as answered: its id, and its JSON arguments in the pieces a stream sends them in. */
export interface FakePlannedToolCall {
  id: string;
  name: string;
  argumentFragments: string[];
}

/** Streams send JSON (a tool call's arguments, a JSON answer) in pieces this long, so clients must join partial JSON. */
export const ARGUMENT_FRAGMENT_CHARS = 8;

/** The whole answer, decided before the first byte so both protocols say the same thing. */
export interface FakeAnswer {
  reasoningFragments: string[];
  responseFragments: string[];
  toolCalls: FakePlannedToolCall[];
  finish: FakeFinish;
  stopSequence?: string;
  usage: FakeUsage;
  /** The answer is the behaviour's JSON, meant to pass the schema or to fail it. */
  json?: 'valid' | 'invalid';
}

/** Splits text into words that keep their surrounding spaces, so the pieces join back exactly. */
export function splitWords(text: string): string[] {
  if (text.length === 0) return [];
  return text.match(/\s*\S+\s*/g) ?? [text];
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}

function group(words: string[], size: number): string[] {
  const fragments: string[] = [];
  for (let index = 0; index < words.length; index += size) fragments.push(words.slice(index, index + size).join(''));
  return fragments;
}

/** JSON text in `ARGUMENT_FRAGMENT_CHARS` pieces (not words: compact JSON has no spaces). */
function slices(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += ARGUMENT_FRAGMENT_CHARS)
    pieces.push(text.slice(start, start + ARGUMENT_FRAGMENT_CHARS));
  return pieces;
}

/** The JSON the behaviour answers, valid or not; `answeredBefore` counts the model's earlier JSON answers. */
function planJson(
  script: FakeJsonScript | null | undefined,
  conversation: FakeConversation,
  answeredBefore: number,
): { kind: 'valid' | 'invalid'; value: unknown } | undefined {
  if (!script) return undefined;
  const structured = conversation.structured;
  const matched = script.cases?.find((item) => conversation.lastUserText.includes(item.when));
  const valid = matched ? matched.value : script.value !== undefined ? script.value : minimalInstance(structured?.schema);
  const invalid = script.answer === 'invalid' || (script.answer === 'invalid_once' && answeredBefore === 0);
  if (!invalid) return { kind: 'valid', value: valid };
  return { kind: 'invalid', value: script.invalidValue !== undefined ? script.invalidValue : invalidInstance(structured?.schema, valid) };
}

/**
 * The answer a behaviour gives a conversation. A word is a token, like the fake's usage
 * counts; a stop sequence cuts the answer before it; `maxTokens` covers reasoning and answer
 * together, as OpenAI's max_completion_tokens and Anthropic's max_tokens do. A `json`
 * behaviour answers JSON where the plain response would be: as the text, or as the call of
 * the forced `json` tool when the request asked that way; `jsonAnswersBefore` (the model's
 * earlier JSON answers) decides whether `invalid_once` still fails.
 */
export function planAnswer(behaviour: FakeBehaviour, conversation: FakeConversation, jsonAnswersBefore = 0): FakeAnswer {
  // A request that offers no tools (or forbids calling them) gets the plain answer, as a real model's.
  const turn = conversation.toolsAllowed ? behaviour.turns?.[conversation.toolRounds] : undefined;
  const json = turn ? undefined : planJson(behaviour.json, conversation, jsonAnswersBefore);
  const jsonTool = json !== undefined && conversation.structured?.mode === 'json_tool';
  const toolCalls = jsonTool
    ? [planToolCall({ name: 'json', arguments: json.value }, conversation.toolRounds, 0)]
    : (turn?.toolCalls ?? []).map((call, index) => planToolCall(call, conversation.toolRounds, index));
  let responseText = turn
    ? (turn.response ?? '')
    : json
      ? jsonTool
        ? ''
        : JSON.stringify(json.value)
      : (behaviour.response ?? `Echo: ${conversation.lastUserText}`);
  let finish: FakeFinish = 'stop';
  let stopSequence: string | undefined;
  let cutAt = responseText.length;
  for (const stop of conversation.stop) {
    const index = stop.length > 0 ? responseText.indexOf(stop) : -1;
    if (index >= 0 && index < cutAt) {
      cutAt = index;
      stopSequence = stop;
    }
  }
  if (stopSequence !== undefined) {
    responseText = responseText.slice(0, cutAt);
    finish = 'stop_sequence';
  }

  let reasoningWords = splitWords(behaviour.reasoning ?? '');
  let responseWords = json ? slices(responseText) : splitWords(responseText);
  if (conversation.maxTokens !== undefined) {
    const budget = conversation.maxTokens;
    if (reasoningWords.length + responseWords.length > budget) {
      reasoningWords = reasoningWords.slice(0, budget);
      responseWords = responseWords.slice(0, budget - reasoningWords.length);
      finish = 'length';
      stopSequence = undefined;
    }
  }

  if (toolCalls.length > 0 && finish !== 'length') {
    finish = 'tool_calls';
    stopSequence = undefined;
  }

  const chunkSize = Math.max(1, behaviour.chunkSize);
  const overrides = behaviour.usage;
  const reasoningTokens = overrides.reasoningTokens ?? reasoningWords.length;
  // An answer cut at the output limit never reaches its tool calls.
  const answeredCalls = finish === 'length' ? [] : toolCalls;
  const toolCallTokens = answeredCalls.reduce((sum, call) => sum + call.argumentFragments.length, 0);
  return {
    reasoningFragments: group(reasoningWords, chunkSize),
    responseFragments: group(responseWords, chunkSize),
    toolCalls: answeredCalls,
    finish,
    ...(stopSequence !== undefined && { stopSequence }),
    ...(json && { json: json.kind }),
    usage: {
      promptTokens: overrides.promptTokens ?? conversation.promptWords,
      cachedTokens: overrides.cachedTokens ?? 0,
      cacheWriteTokens: overrides.cacheWriteTokens ?? 0,
      reasoningTokens,
      completionTokens: overrides.completionTokens ?? responseWords.length + reasoningTokens + toolCallTokens,
    },
  };
}

/**
 * Ids are stable for a turn and call index, so a test can name the result it sends back. The
 * arguments are any JSON: the `json` tool's input is whatever the JSON answer is, even invalid.
 */
function planToolCall(call: { name: string; arguments: unknown }, round: number, index: number): FakePlannedToolCall {
  return { id: `call_fake_${round}_${index}`, name: call.name, argumentFragments: slices(JSON.stringify(call.arguments)) };
}
