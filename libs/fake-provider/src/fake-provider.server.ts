import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { BodyTooLargeError, listen, readBody, sendJson } from './http-io';
import {
  anthropicConversation,
  anthropicError,
  anthropicEvent,
  anthropicInputUsage,
  anthropicMessage,
  anthropicOutputUsage,
  anthropicStopReason,
  hasTextBlock,
  thinkingSignature,
} from './anthropic-protocol';
import {
  parseBehaviour,
  planAnswer,
  resolveBehaviour,
  type FakeAnswer,
  type FakeBehaviour,
  type FakeConversation,
  type FakeImage,
} from './behaviour';
import { embeddingRequest, openAIEmbeddings, type FakeEmbeddingRequest } from './embeddings';
import type { FakeStructuredMode } from './structured';
import {
  openAIChunk,
  openAICompletion,
  openAIConversation,
  openAIError,
  openAIFinishReason,
  openAIToolCallDeltas,
  type OpenAIIdentity,
} from './openai-protocol';

export type FakeProtocol = 'openai' | 'anthropic';

/**
 * One model request (or list-models call) as the fake saw it. Headers are not kept; the key the
 * caller presented is, so a test can tell whose key called (the operator's or a workspace's).
 */
export interface FakeRequestRecord {
  id: string;
  protocol: FakeProtocol | 'google';
  path: string;
  /** The API key presented (Authorization bearer, x-api-key, x-goog-api-key or `?key=`); null when none was. */
  apiKey: string | null;
  model: string;
  /** The parsed JSON body; null when it was not JSON. */
  body: unknown;
  stream: boolean;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** When the fake ended the answer (completed, answered an error, or broke it on purpose). */
  finishedAt?: number;
  /** HTTP status answered, once the headers went out. */
  status?: number;
  /** The client closed the connection before the answer finished. */
  aborted: boolean;
  abortedAt?: number;
  /** Image parts of the request's messages (none for embeddings). */
  images: FakeImage[];
  /** Rounds of tool results the request carried: which scripted turn answered it. */
  toolRounds: number;
  /** Text of the request's last user message (a repair request's is the repair prompt). */
  lastUserText: string;
  /** How the request asked for a structured answer; null when it did not. */
  structured: FakeStructuredMode | null;
  /** The JSON schema of a structured request that sent one. */
  schema?: unknown;
  /** The strict flag of a structured request that sent one. */
  strict?: boolean;
  /** The answer was the `json` behaviour's, meant to pass the schema or to fail it. */
  jsonAnswer?: 'valid' | 'invalid';
}

export interface FakeProviderOptions {
  maxRecords?: number;
}

type Json = Record<string, unknown>;

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MODEL_PATH_PREFIX = '/_fake/models/';
/** A key starting with this is always refused (401), as a provider refuses a revoked key. */
export const REFUSED_KEY_PREFIX = 'bad-';
/** The models list-models answers. */
const LISTED_MODELS = ['fake-model'];

/** The key a request presents, however its protocol sends it. */
function presentedKey(request: IncomingMessage, url: URL): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return bearer ?? header('x-api-key') ?? header('x-goog-api-key') ?? url.searchParams.get('key') ?? null;
}

/** Resolves false instead of waiting when the request was aborted meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Resolves true once the hold is released, false if the request is aborted first. */
function untilReleased(released: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return Promise.race([
    released.then(() => true),
    new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true })),
  ]);
}

/**
 * A real HTTP server speaking the OpenAI chat-completions and Anthropic messages protocols
 * closely enough for the AI SDK's providers to work unchanged against it, so tests and
 * benchmarks exercise the real provider layer over a socket.
 */
export class FakeProviderServer {
  private readonly defaults: Partial<FakeBehaviour>;
  private readonly models = new Map<string, Partial<FakeBehaviour>>();
  /** Per model id, the gate the next streamed answer of that model stops at. */
  private readonly gates = new Map<string, (record: FakeRequestRecord) => PendingGate>();
  private readonly records: FakeRequestRecord[] = [];
  private readonly watchers = new Set<() => void>();
  /** Keys answered 401 (`rejectKeys`), besides every key starting with REFUSED_KEY_PREFIX. */
  private readonly refusedKeys = new Set<string>();
  /** Models whose requests wait for a test to release them (`hold`). */
  private readonly holds = new Map<string, Promise<void>>();
  /** Per model id, the JSON answers since its behaviour was last set: `invalid_once` fails only the first. */
  private readonly jsonAnswers = new Map<string, number>();
  private server?: Server;
  private stopping = false;
  private sequence = 0;
  private baseUrl?: string;
  private readonly maxRecords: number;

  /** `maxRecords` keeps only the newest records, so a long benchmark run does not grow without bound. */
  constructor(defaults: Partial<FakeBehaviour> = {}, options: FakeProviderOptions = {}) {
    this.defaults = parseBehaviour(defaults);
    this.maxRecords = options.maxRecords ?? Number.POSITIVE_INFINITY;
  }

  /** The base URL `start` answered; the providers' base URLs are this plus `/v1`. */
  get url(): string {
    if (!this.baseUrl) throw new Error('FakeProviderServer is not started');
    return this.baseUrl;
  }

  /** Every model request so far, oldest first; records update in place as answers end. */
  get requests(): readonly FakeRequestRecord[] {
    return [...this.records];
  }

  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error('FakeProviderServer is already started');
    const server = createServer({ noDelay: true, keepAliveTimeout: 5_000 }, (request, response) => void this.handle(request, response));
    this.server = server;
    this.stopping = false;
    this.baseUrl = `http://${await listen(server, port, host, 'fake provider')}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.stopping = true;
    this.server = undefined;
    this.baseUrl = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Scripts one model id; its fields override the server-wide defaults. */
  setModel(modelId: string, behaviour: Partial<FakeBehaviour>): void {
    this.models.set(modelId, parseBehaviour(behaviour));
    this.jsonAnswers.delete(modelId);
  }

  /** Every request presenting one of these keys is answered 401 from now on (model calls and list-models alike). */
  rejectKeys(...keys: string[]): void {
    for (const key of keys) this.refusedKeys.add(key);
  }

  private refuses(key: string | null): boolean {
    return key !== null && (key.startsWith(REFUSED_KEY_PREFIX) || this.refusedKeys.has(key));
  }

  clearModel(modelId: string): void {
    this.models.delete(modelId);
    this.jsonAnswers.delete(modelId);
  }

  /**
   * Holds every request for the model: recorded at once, answered only once the returned
   * function is called (or dropped when the client aborts), so a test can act while a run is
   * provably in flight instead of guessing with a latency.
   */
  hold(modelId: string): () => void {
    let open!: () => void;
    const released = new Promise<void>((resolve) => (open = resolve));
    const release = (): void => {
      if (this.holds.get(modelId) === released) this.holds.delete(modelId);
      open();
    };
    this.holds.set(modelId, released);
    return release;
  }

  /** Forgets the per-model scripts and the recorded requests; the constructor's defaults stay. */
  reset(): void {
    this.models.clear();
    this.jsonAnswers.clear();
    this.clearRequests();
  }

  clearRequests(): void {
    this.records.length = 0;
  }

  behaviourFor(modelId: string): FakeBehaviour {
    return resolveBehaviour(this.defaults, this.models.get(modelId));
  }

  /**
   * Holds the next streamed answer of `modelId` after `afterFragments` fragments until
   * `release()`, so a test knows a run is still going (and where) while it acts.
   */
  gate(modelId: string, afterFragments: number): FakeGate {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: (record: FakeRequestRecord) => void;
    const reachedPromise = new Promise<FakeRequestRecord>((resolve) => (reached = resolve));
    this.gates.set(modelId, (record) => ({ afterFragments, released, reach: () => reached(record) }));
    return { reached: reachedPromise, release };
  }

  /** The first record (already there or still to come) matching the predicate, re-checked as records change. */
  waitForRequest(predicate: (record: FakeRequestRecord) => boolean, timeoutMs = 5_000): Promise<FakeRequestRecord> {
    const existing = this.records.find(predicate);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const watcher = (): void => {
        const found = this.records.find(predicate);
        if (!found) return;
        this.watchers.delete(watcher);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.watchers.delete(watcher);
        reject(new Error(`no matching fake provider request within ${timeoutMs} ms`));
      }, timeoutMs);
      this.watchers.add(watcher);
    });
  }

  private notify(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const path = url.pathname;
    try {
      if (request.method === 'GET' && (path === '/v1/models' || path === '/v1beta/models'))
        return this.listModels(path, request, url, response);
      if (request.method === 'POST' && path === '/v1/chat/completions') return await this.serveModel('openai', path, request, response);
      if (request.method === 'POST' && path === '/v1/messages') return await this.serveModel('anthropic', path, request, response);
      if (request.method === 'POST' && path === '/v1/embeddings') return await this.serveModel('openai', path, request, response);
      if (path === '/_fake/requests' && request.method === 'GET') return sendJson(response, 200, this.records);
      if (path === '/_fake/requests' && request.method === 'DELETE') {
        this.clearRequests();
        return void response.writeHead(204).end();
      }
      if (path.startsWith(MODEL_PATH_PREFIX) && path.length > MODEL_PATH_PREFIX.length) {
        return await this.serveControl(decodeURIComponent(path.slice(MODEL_PATH_PREFIX.length)), request, response);
      }
      sendJson(response, 404, { error: { message: `No route for ${request.method} ${path}`, type: 'not_found' } });
    } catch (error) {
      if (response.headersSent) response.destroy();
      else
        sendJson(response, error instanceof BodyTooLargeError ? 413 : 500, {
          error: { message: String((error as Error).message), type: 'fake_error' },
        });
    }
  }

  private async serveControl(modelId: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'DELETE') {
      this.clearModel(modelId);
      return void response.writeHead(204).end();
    }
    if (request.method === 'GET') return sendJson(response, 200, { model: modelId, behaviour: this.behaviourFor(modelId) });
    if (request.method !== 'PUT')
      return sendJson(response, 405, { error: { message: 'Use PUT, GET or DELETE', type: 'method_not_allowed' } });
    try {
      // setModel checks the behaviour (parseBehaviour) and starts the model's JSON answers over.
      this.setModel(modelId, JSON.parse(await readBody(request, MAX_BODY_BYTES)) as Partial<FakeBehaviour>);
    } catch (error) {
      return sendJson(response, 400, { error: { message: (error as Error).message, type: 'invalid_behaviour' } });
    }
    sendJson(response, 200, { model: modelId, behaviour: this.behaviourFor(modelId) });
  }

  /** A new request's record, kept (the newest maxRecords only). */
  private record(
    id: string,
    protocol: FakeRequestRecord['protocol'],
    path: string,
    apiKey: string | null,
    body: Json | null,
  ): FakeRequestRecord {
    const record: FakeRequestRecord = {
      id,
      protocol,
      path,
      apiKey,
      model: typeof body?.model === 'string' ? body.model : '',
      body,
      stream: body?.stream === true,
      receivedAt: Date.now(),
      aborted: false,
      images: [],
      toolRounds: 0,
      lastUserText: '',
      structured: null,
    };
    this.records.push(record);
    if (this.records.length > this.maxRecords) this.records.splice(0, this.records.length - this.maxRecords);
    return record;
  }

  /**
   * List models, the call a key is tested with: OpenAI's shape at /v1/models, Anthropic's when
   * the request carries its headers, Google's at /v1beta/models; 401 without a key or for a refused one.
   */
  private listModels(path: string, request: IncomingMessage, url: URL, response: ServerResponse): void {
    const apiKey = presentedKey(request, url);
    const protocol = path === '/v1beta/models' ? 'google' : request.headers['x-api-key'] ? 'anthropic' : 'openai';
    const record = this.record(`fakereq_${++this.sequence}`, protocol, path, apiKey, null);
    const status = apiKey === null || this.refuses(apiKey) ? 401 : 200;
    if (status === 401) {
      sendJson(
        response,
        401,
        protocol === 'anthropic'
          ? anthropicError(401, 'invalid x-api-key', 'req_fake_models')
          : openAIError(401, 'Incorrect API key provided'),
      );
    } else if (protocol === 'google') {
      sendJson(response, 200, { models: LISTED_MODELS.map((id) => ({ name: `models/${id}`, displayName: id })) });
    } else if (protocol === 'anthropic') {
      sendJson(response, 200, {
        data: LISTED_MODELS.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' })),
        has_more: false,
        first_id: LISTED_MODELS[0],
        last_id: LISTED_MODELS.at(-1),
      });
    } else {
      sendJson(response, 200, { object: 'list', data: LISTED_MODELS.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
    }
    record.status = status;
    record.finishedAt = Date.now();
    this.notify();
  }

  private async serveModel(protocol: FakeProtocol, path: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const sequence = ++this.sequence;
    const raw = await readBody(request, MAX_BODY_BYTES);
    let body: Json | null = null;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Json;
    } catch {
      body = null;
    }
    const record = this.record(
      `fakereq_${sequence}`,
      protocol,
      path,
      presentedKey(request, new URL(request.url ?? '/', 'http://fake')),
      body,
    );
    this.notify();

    const aborted = new AbortController();
    let brokenOnPurpose = false;
    response.on('close', () => {
      if (!response.writableEnded && !brokenOnPurpose && !this.stopping) {
        record.aborted = true;
        record.abortedAt = Date.now();
        this.notify();
      }
      aborted.abort();
    });
    const finish = (status?: number): void => {
      record.finishedAt = Date.now();
      if (status !== undefined) record.status = status;
      this.notify();
    };
    const fail = (status: number, message?: string, headers: Record<string, string> = {}): void => {
      const requestId = `req_fake_${sequence}`;
      const errorBody = protocol === 'openai' ? openAIError(status, message) : anthropicError(status, message, requestId);
      sendJson(response, status, errorBody, { ...headers, [protocol === 'openai' ? 'x-request-id' : 'request-id']: requestId });
      finish(status);
    };

    if (this.refuses(record.apiKey)) return fail(401, 'Incorrect API key provided');
    if (protocol === 'anthropic') {
      if (!request.headers['x-api-key']) return fail(401, 'x-api-key header is required');
      if (!request.headers['anthropic-version']) return fail(400, 'anthropic-version: header is required');
    }
    const parsed = body && parseModelRequest(protocol, path, body);
    if (!body || typeof parsed !== 'object' || parsed === null || !record.model) {
      return fail(
        400,
        typeof parsed === 'string'
          ? parsed
          : protocol === 'anthropic'
            ? 'model, messages and max_tokens are required'
            : 'model and messages are required',
      );
    }
    if ('images' in parsed) {
      const { images, toolRounds, lastUserText, structured } = parsed;
      Object.assign(record, { images, toolRounds, lastUserText, structured: structured?.mode ?? null });
      if (structured?.schema !== undefined) record.schema = structured.schema;
      if (structured?.strict !== undefined) record.strict = structured.strict;
      // A test may wait for what the request asked (a held or hanging one sends no more news).
      this.notify();
    }

    const held = this.holds.get(record.model);
    if (held && !(await untilReleased(held, aborted.signal))) return;
    const behaviour = this.behaviourFor(record.model);
    // `hang` is a hold nobody releases: only the client going away ends it.
    if (behaviour.hang) return void (await untilReleased(new Promise<void>(() => undefined), aborted.signal));
    if (!(await pause(behaviour.latencyMs, aborted.signal))) return;
    if (behaviour.error) {
      const { status, message, retryAfterSeconds } = behaviour.error;
      return fail(status, message, status === 429 ? { 'retry-after': String(retryAfterSeconds ?? 1) } : {});
    }
    if (!record.stream && behaviour.failAfterFragments != null) {
      brokenOnPurpose = true;
      response.destroy();
      return finish();
    }

    if (!('images' in parsed)) {
      const dimensions = parsed.dimensions ?? behaviour.embeddingDimensions;
      sendJson(response, 200, openAIEmbeddings(record.model, parsed, dimensions, behaviour.usage.promptTokens));
      return finish(200);
    }
    const jsonAnswersBefore = this.jsonAnswers.get(record.model) ?? 0;
    const answer = planAnswer(behaviour, parsed, jsonAnswersBefore);
    if (answer.json) {
      this.jsonAnswers.set(record.model, jsonAnswersBefore + 1);
      record.jsonAnswer = answer.json;
    }
    const id =
      protocol === 'openai' ? `chatcmpl-fake${sequence}${randomUUID().slice(0, 8)}` : `msg_fake${sequence}${randomUUID().slice(0, 8)}`;
    if (!record.stream) {
      sendJson(
        response,
        200,
        protocol === 'openai' ? openAICompletion(this.identity(id, record.model), answer) : anthropicMessage(id, record.model, answer),
      );
      return finish(200);
    }

    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    record.status = 200;
    const gate = this.gates.get(record.model)?.(record);
    this.gates.delete(record.model);
    const stream = { response, signal: aborted.signal, behaviour, answer, gate };
    const outcome =
      protocol === 'openai'
        ? await this.streamOpenAI(
            stream,
            this.identity(id, record.model),
            (body.stream_options as Json | undefined)?.include_usage === true,
          )
        : await this.streamAnthropic(stream, id, record.model);
    if (outcome === 'aborted') return;
    if (outcome === 'break' && protocol === 'openai') {
      brokenOnPurpose = true;
      // The fragments already written still reach the client; then the connection drops
      // without the chunked body's terminator, as when a provider's connection is cut.
      response.socket?.destroySoon();
      return finish();
    }
    response.end();
    finish();
  }

  private identity(id: string, model: string): OpenAIIdentity {
    return { id, model, created: Math.floor(Date.now() / 1000) };
  }

  /** Writes the fragments in order, pausing between them; stops early on abort or at the scripted break. */
  private async writeFragments<T>(
    stream: FragmentStream,
    fragments: T[],
    write: (fragment: T) => void,
    written: { count: number },
  ): Promise<'ok' | 'aborted' | 'break'> {
    const breakAfter = stream.behaviour.failAfterFragments;
    for (const fragment of fragments) {
      if (breakAfter != null && written.count >= breakAfter) return 'break';
      const gate = stream.gate;
      if (gate && written.count === gate.afterFragments) {
        stream.gate = undefined;
        gate.reach();
        await Promise.race([gate.released, once(stream.signal, 'abort')]);
        if (stream.signal.aborted) return 'aborted';
      }
      if (written.count > 0 && !(await pause(stream.behaviour.tokenDelayMs, stream.signal))) return 'aborted';
      if (stream.signal.aborted) return 'aborted';
      write(fragment);
      written.count += 1;
    }
    return breakAfter != null && written.count >= breakAfter ? 'break' : 'ok';
  }

  private async streamOpenAI(stream: FragmentStream, identity: OpenAIIdentity, includeUsage: boolean): Promise<'ok' | 'aborted' | 'break'> {
    const { response, answer } = stream;
    const send = (chunk: Json | '[DONE]'): boolean => response.write(`data: ${chunk === '[DONE]' ? chunk : JSON.stringify(chunk)}\n\n`);
    send(openAIChunk(identity, { delta: { role: 'assistant', content: '', refusal: null } }, includeUsage));
    const deltas = [
      ...answer.reasoningFragments.map((text) => ({ reasoning_content: text })),
      ...answer.responseFragments.map((text) => ({ content: text })),
      ...answer.toolCalls.flatMap((call, index) => openAIToolCallDeltas(call, index)),
    ];
    const outcome = await this.writeFragments(stream, deltas, (delta) => send(openAIChunk(identity, { delta }, includeUsage)), {
      count: 0,
    });
    if (outcome !== 'ok') return outcome;
    send(openAIChunk(identity, { delta: {}, finishReason: openAIFinishReason(answer) }, includeUsage));
    if (includeUsage) send(openAIChunk(identity, undefined, true, answer.usage));
    send('[DONE]');
    return 'ok';
  }

  private async streamAnthropic(stream: FragmentStream, id: string, model: string): Promise<'ok' | 'aborted' | 'break'> {
    const { response, answer } = stream;
    const send = (type: string, data: Json = {}): boolean => response.write(anthropicEvent(type, data));
    send('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...anthropicInputUsage(answer.usage), output_tokens: 1, service_tier: 'standard' },
      },
    });
    send('ping');
    const written = { count: 0 };
    const broken = (): 'break' => {
      send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      return 'break';
    };
    let index = 0;
    if (answer.reasoningFragments.length > 0) {
      send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      const outcome = await this.writeFragments(
        stream,
        answer.reasoningFragments,
        (thinking) => send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }),
        written,
      );
      if (outcome === 'break') return broken();
      if (outcome === 'aborted') return outcome;
      send('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: thinkingSignature(answer.reasoningFragments.join('')) },
      });
      send('content_block_stop', { index });
      index += 1;
    }
    const blocks: Array<{ start: Json; deltas: Json[] }> = [
      ...(hasTextBlock(answer)
        ? [{ start: { type: 'text', text: '' }, deltas: answer.responseFragments.map((text) => ({ type: 'text_delta', text })) }]
        : []),
      ...answer.toolCalls.map((call) => ({
        start: { type: 'tool_use', id: call.id, name: call.name, input: {} },
        deltas: call.argumentFragments.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      })),
    ];
    for (const block of blocks) {
      send('content_block_start', { index, content_block: block.start });
      const outcome = await this.writeFragments(stream, block.deltas, (delta) => send('content_block_delta', { index, delta }), written);
      if (outcome === 'break') return broken();
      if (outcome === 'aborted') return outcome;
      send('content_block_stop', { index });
      index += 1;
    }
    send('message_delta', {
      delta: { stop_reason: anthropicStopReason(answer), stop_sequence: answer.stopSequence ?? null },
      usage: anthropicOutputUsage(answer.usage),
    });
    send('message_stop');
    return 'ok';
  }
}

interface FragmentStream {
  response: ServerResponse;
  signal: AbortSignal;
  behaviour: FakeBehaviour;
  answer: FakeAnswer;
  gate?: PendingGate;
}

/** A streamed answer held after some fragments until the test releases it (`FakeProviderServer.gate`). */
export interface FakeGate {
  /** Resolves with the request's record once the fragments before the gate are written and the answer waits. */
  reached: Promise<FakeRequestRecord>;
  /** Lets the answer go on. */
  release(): void;
}

interface PendingGate {
  afterFragments: number;
  reach(): void;
  released: Promise<void>;
}

/** A request body of the endpoint at `path`; a string says why it is not one. */
function parseModelRequest(protocol: FakeProtocol, path: string, body: Json): FakeConversation | FakeEmbeddingRequest | string | undefined {
  if (path === '/v1/embeddings') return embeddingRequest(body);
  return protocol === 'openai' ? openAIConversation(body) : anthropicConversation(body);
}
