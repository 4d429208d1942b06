import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { AgentRecord, RequestLookup } from '@waggle/contracts';
import {
  applyDefinitions,
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type FakeRequestRecord,
} from '@waggle/testing';
import { generateText, jsonSchema, Output, stepCountIs, streamText, tool } from 'ai';
import { createParser } from 'eventsource-parser';
import { randomUUID } from 'node:crypto';
import OpenAI, { APIError, AuthenticationError, BadRequestError, NotFoundError, RateLimitError, UnprocessableEntityError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming, ChatCompletionTool } from 'openai/resources/chat/completions';

/** The fake models: one for prompts (tools and native JSON schema), one for the agent. */
const MODEL = 'oa-chat';
const AGENT_MODEL = 'oa-agent';
const EMBEDDER = 'oa-embedder';
const REQUEST_ID = /^req_[0-9a-f]{32}$/;

const DEFINITIONS = `
prompts:
  - deployment: helpdesk
    variants:
      - name: default
        model: ${MODEL}
        messages:
          - { role: system, content: "You are the helpdesk of {{ product }}." }
      - name: plain
        model: ${MODEL}
        messages:
          - { role: system, content: "Be brief." }
`;
const HELPDESK = 'prompt/helpdesk/default';
const PLAIN = 'prompt/helpdesk/plain';

const PLACE_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};
const PARIS = { city: 'Paris', population: 2_100_000 };

const WEATHER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};
/** The fake model calls get_weather for Oslo, then answers once it has the result. */
const WEATHER_TURNS = {
  turns: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { response: 'It is sunny in Oslo.' }],
};

type ModelMessage = { role: string; content: unknown; tool_call_id?: string; tool_calls?: unknown[] };
const messagesOf = (record: FakeRequestRecord) => (record.body as { messages: ModelMessage[] }).messages;
const toolNamesOf = (record: FakeRequestRecord) =>
  ((record.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((offered) => offered.function.name);

/**
 * The OpenAI-compatible surface (`/openai/v1`, docs/decisions.md D51–D59) driven by real, unchanged clients: the official `openai` SDK and the Vercel AI SDK's
 * OpenAI-compatible and OpenAI (Responses) providers, against the whole stack over HTTP (gateway,
 * invocation, agent, knowledge base, catalog) with the fake provider behind it.
 */
describe('the OpenAI-compatible API, driven by OpenAI clients', () => {
  const fake = new FakeProviderServer({});
  const apps: AppProcess[] = [];
  let gateway: string;
  let baseURL: string;
  let key: string;
  let workspaceId: string;
  let agent: AgentRecord;
  let client: OpenAI;

  const getJson = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${key}` } })).json()) as T;
  const postJson = async <T>(path: string, method: string, body: unknown): Promise<T> => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  /** The model requests the fake received for `model` since `from`. */
  const sentTo = (model: string, from: number) => fake.requests.slice(from).filter((record) => record.model === model);
  /** The run's ledger record once it is terminal (the ledger is written beside the run). */
  const ledgerRecord = (requestId: string) =>
    expectEventually(async () => {
      const record = await getJson<RequestLookup>(`/v1/public/requests/${requestId}`);
      expect(record.status).toBe('completed');
      return record;
    });
  /** What an SDK call threw (it must throw). */
  const refusal = async (call: () => Promise<unknown>): Promise<APIError> => {
    const error = await call().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(APIError);
    return error as APIError;
  };

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('agent', await freePort(), env),
      spawnApp('knowledge-base', await freePort(), { ...env, KB_EMBEDDING_MODEL: EMBEDDER }),
      spawnApp('gateway', await freePort(), env),
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[4].baseUrl;
    baseURL = `${gateway}/openai/v1`;
    await loadCatalogWithFakeModels('2099.31.1', [
      fakeModel(MODEL, { tool_calling: true, json_schema: true }),
      fakeModel(AGENT_MODEL, { tool_calling: true, context_limit: 100_000 }),
      fakeModel(EMBEDDER, { model_type: 'embedding', reasoning: false }),
    ]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e openai-compatible',
      '--plan',
      'enterprise',
    ]);
    key = created.api_key;
    workspaceId = created.workspace_id;
    await applyDefinitions(DEFINITIONS, workspaceId);
    // An agent whose only tool is knowledge_search over an (empty) knowledge base: the fake scripts a call to it.
    agent = (
      await postJson<{ agent: AgentRecord }>(`/v1/public/workspaces/${workspaceId}/agents`, 'POST', {
        agent: { name: 'Concierge', llm_model: AGENT_MODEL, model_type: 'llm', instruction_prompt: 'You are the Concierge.' },
      })
    ).agent;
    const knowledgeBase = (
      await postJson<{ knowledge_base: { id: string } }>(`/v1/public/workspaces/${workspaceId}/knowledge_bases`, 'POST', {
        knowledge_base: { name: 'Handbook', search_type: 'full_text' },
      })
    ).knowledge_base;
    await postJson(`/v1/private/agents/${agent.id}/knowledge_bases`, 'PUT', { knowledge_base_ids: [knowledgeBase.id] });
    client = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
  });

  afterEach(() => fake.reset());

  /**
   * `chat.completions` against a prompt deployment's variant: the template's messages first
   * (rendered with `metadata` or the `inputs` extension field), then the caller's; answers
   * whole and streamed, caller tools and their results, and a JSON schema response format.
   */
  describe('chat completions on a prompt deployment', () => {
    it('answers a whole completion echoing the model, with usage and stop, and the ledger marks the openai surface', async () => {
      fake.setModel(MODEL, { response: 'Waggle routes your prompts.', usage: { promptTokens: 11, completionTokens: 7 } });
      const from = fake.requests.length;
      const { data, response, request_id } = await client.chat.completions
        .create({ model: HELPDESK, messages: [{ role: 'user', content: 'What is Waggle?' }], metadata: { product: 'Waggle' } })
        .withResponse();
      expect(data).toMatchObject({
        object: 'chat.completion',
        model: HELPDESK,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Waggle routes your prompts.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      });
      expect(data.choices[0].message.tool_calls).toBeUndefined();
      const requestId = response.headers.get('x-request-id') ?? '';
      expect(requestId).toMatch(REQUEST_ID);
      expect(request_id).toBe(requestId);
      expect(data.id).toBe(`chatcmpl-${requestId.slice(4)}`);
      // The template's message (rendered from metadata), then the caller's.
      const [sent] = sentTo(MODEL, from);
      expect(messagesOf(sent)).toEqual([
        { role: 'system', content: 'You are the helpdesk of Waggle.' },
        { role: 'user', content: 'What is Waggle?' },
      ]);
      const record = await ledgerRecord(requestId);
      expect(record).toMatchObject({
        request_id: requestId,
        surface: 'openai',
        request_type: 'prompt',
        message: 'What is Waggle?',
        metadata: { product: 'Waggle' },
      });
    });

    it('renders the template from the inputs extension field before metadata, and the caller parameters reach the model', async () => {
      const from = fake.requests.length;
      const body: ChatCompletionCreateParamsNonStreaming & { inputs: Record<string, string> } = {
        model: HELPDESK,
        messages: [
          { role: 'developer', content: 'Answer in French.' },
          { role: 'user', content: 'Bonjour' },
        ],
        inputs: { product: 'the Hive' },
        metadata: { product: 'ignored' },
        temperature: 0.3,
        max_completion_tokens: 50,
        stop: ['END'],
      };
      const completion = await client.chat.completions.create(body);
      expect(completion.choices[0].message.content).toBe('Echo: Bonjour');
      const [sent] = sentTo(MODEL, from);
      expect(messagesOf(sent)).toEqual([
        { role: 'system', content: 'You are the helpdesk of the Hive.' },
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Bonjour' },
      ]);
      const payload = sent.body as { temperature: number; max_tokens?: number; max_completion_tokens?: number; stop: string[] };
      expect(payload.temperature).toBe(0.3);
      expect(payload.max_tokens ?? payload.max_completion_tokens).toBe(50);
      expect(payload.stop).toEqual(['END']);
    });

    it('streams chunks: the role first, the deltas, usage: null until one last chunk with no choices and the totals', async () => {
      fake.setModel(MODEL, { response: 'one two three four', usage: { promptTokens: 5, completionTokens: 4 } });
      const stream = await client.chat.completions.create({
        model: PLAIN,
        messages: [{ role: 'user', content: 'Count' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.length).toBeGreaterThan(4);
      const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
      expect(deltas[0].role).toBe('assistant');
      expect(deltas.slice(1).every((delta) => delta.role === undefined)).toBe(true);
      expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('one two three four');
      expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
      expect(new Set(chunks.map((chunk) => chunk.created)).size).toBe(1);
      expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === PLAIN)).toBe(true);
      const [last] = chunks.slice(-1);
      const earlier = chunks.slice(0, -1);
      expect(earlier.every((chunk) => chunk.usage === null)).toBe(true);
      expect(earlier.at(-1)?.choices[0].finish_reason).toBe('stop');
      expect(earlier.slice(0, -1).every((chunk) => chunk.choices[0].finish_reason === null)).toBe(true);
      expect(last.choices).toEqual([]);
      expect(last.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
    });

    it('frames the stream as OpenAI does: data lines of chunks, then [DONE], with the x-request-id of the run', async () => {
      fake.setModel(MODEL, { response: 'alpha beta' });
      const response = await client.chat.completions
        .create({ model: PLAIN, messages: [{ role: 'user', content: 'Go' }], stream: true })
        .asResponse();
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const requestId = response.headers.get('x-request-id') ?? '';
      expect(requestId).toMatch(REQUEST_ID);
      const events = await collectSse(response);
      expect(events.at(-1)).toBe('[DONE]');
      const chunks = events.slice(0, -1) as Array<Record<string, unknown>>;
      expect(chunks.every((chunk) => chunk.id === `chatcmpl-${requestId.slice(4)}`)).toBe(true);
      // Without include_usage no chunk carries usage at all.
      expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
      expect((await ledgerRecord(requestId)).surface).toBe('openai');
    });

    it('passes caller tools through and answers the tool call, then the final answer once the result is sent back', async () => {
      fake.setModel(MODEL, WEATHER_TURNS);
      const from = fake.requests.length;
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
      const first = await client.chat.completions.create({ model: PLAIN, messages, tools: [WEATHER_TOOL], tool_choice: 'auto' });
      const choice = first.choices[0];
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      expect(choice.message.tool_calls).toEqual([
        { id: 'call_fake_0_0', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city: 'Oslo' }) } },
      ]);
      const [offered] = sentTo(MODEL, from);
      expect(toolNamesOf(offered)).toEqual(['get_weather']);
      expect(JSON.stringify((offered.body as { tools: unknown }).tools)).toContain('The weather in a city');

      messages.push(choice.message, { role: 'tool', tool_call_id: 'call_fake_0_0', content: '{"sky":"sunny","celsius":21}' });
      const second = await client.chat.completions.create({ model: PLAIN, messages, tools: [WEATHER_TOOL] });
      expect(second.choices[0]).toMatchObject({ message: { content: 'It is sunny in Oslo.' }, finish_reason: 'stop' });
      const [, answered] = sentTo(MODEL, from);
      expect(answered.toolRounds).toBe(1);
      const toolMessage = messagesOf(answered).find((message) => message.role === 'tool');
      expect(toolMessage).toMatchObject({ tool_call_id: 'call_fake_0_0' });
      expect(JSON.stringify(toolMessage?.content)).toContain('sunny');
    });

    it('streams tool calls as deltas each with its index, which the SDK joins into the final message', async () => {
      fake.setModel(MODEL, {
        turns: [
          {
            toolCalls: [
              { name: 'get_weather', arguments: { city: 'Oslo' } },
              { name: 'get_weather', arguments: { city: 'Bergen' } },
            ],
          },
        ],
      });
      const request = {
        model: PLAIN,
        messages: [{ role: 'user' as const, content: 'Weather in Oslo and Bergen?' }],
        tools: [WEATHER_TOOL],
      };
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) chunks.push(chunk);
      const toolDeltas = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
      expect(toolDeltas.length).toBeGreaterThanOrEqual(2);
      expect(toolDeltas.every((delta) => typeof delta.index === 'number')).toBe(true);
      expect(new Set(toolDeltas.map((delta) => delta.index))).toEqual(new Set([0, 1]));
      expect(chunks.at(-1)?.choices[0].finish_reason).toBe('tool_calls');

      // The SDK's stream helper accumulates the deltas by index into whole tool calls.
      const stream = client.chat.completions.stream(request);
      const final = await stream.finalChatCompletion();
      expect(final.choices[0].finish_reason).toBe('tool_calls');
      expect(
        final.choices[0].message.tool_calls?.map(
          (call) => call.type === 'function' && [call.id, call.function.name, call.function.arguments],
        ),
      ).toEqual([
        ['call_fake_0_0', 'get_weather', '{"city":"Oslo"}'],
        ['call_fake_0_1', 'get_weather', '{"city":"Bergen"}'],
      ]);
    });

    it('answers a json_schema response format with JSON valid against the schema, sent to the model natively', async () => {
      fake.setModel(MODEL, { json: { answer: 'valid', value: PARIS } });
      const from = fake.requests.length;
      const completion = await client.chat.completions.parse({
        model: PLAIN,
        messages: [{ role: 'user', content: 'The largest city of France?' }],
        response_format: { type: 'json_schema', json_schema: { name: 'place', schema: PLACE_SCHEMA, strict: true } },
      });
      const message = completion.choices[0].message;
      expect(JSON.parse(message.content ?? '')).toEqual(PARIS);
      expect(message.parsed).toEqual(PARIS);
      const [sent] = sentTo(MODEL, from);
      expect(sent.structured).toBe('json_schema');
      expect(sent.schema).toEqual(PLACE_SCHEMA);
    });

    it('answers a json_object response format with a JSON object', async () => {
      fake.setModel(MODEL, { json: { answer: 'valid', value: { ok: true } } });
      const completion = await client.chat.completions.create({
        model: PLAIN,
        messages: [{ role: 'user', content: 'Reply in JSON' }],
        response_format: { type: 'json_object' },
      });
      expect(JSON.parse(completion.choices[0].message.content ?? '')).toEqual({ ok: true });
    });
  });

  /** `responses.create` (behaving as `store: false`): whole, as its event stream, and with function tools. */
  describe('responses', () => {
    it('answers a whole response: output_text, instructions as the system message, usage', async () => {
      fake.setModel(MODEL, { usage: { promptTokens: 6, completionTokens: 2 } });
      const from = fake.requests.length;
      const response = await client.responses.create({
        model: HELPDESK,
        input: 'Hello',
        instructions: 'Keep it short.',
        metadata: { product: 'Waggle' },
        max_output_tokens: 40,
      });
      expect(response).toMatchObject({
        object: 'response',
        status: 'completed',
        model: HELPDESK,
        output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Echo: Hello' }] }],
        usage: { input_tokens: 6, output_tokens: 2, total_tokens: 8 },
      });
      expect(response.output_text).toBe('Echo: Hello');
      expect(response._request_id).toMatch(REQUEST_ID);
      const [sent] = sentTo(MODEL, from);
      expect(messagesOf(sent)).toEqual([
        { role: 'system', content: 'You are the helpdesk of Waggle.' },
        { role: 'system', content: 'Keep it short.' },
        { role: 'user', content: 'Hello' },
      ]);
      const payload = sent.body as { max_tokens?: number; max_completion_tokens?: number };
      expect(payload.max_tokens ?? payload.max_completion_tokens).toBe(40);
      expect((await ledgerRecord(response._request_id ?? '')).surface).toBe('openai');
    });

    it('streams the Responses events in order, response.completed last, with no [DONE]', async () => {
      fake.setModel(MODEL, { response: 'one two three' });
      const stream = await client.responses.create({
        model: PLAIN,
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Count' }] }],
        stream: true,
      });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const types = events.map((event) => event.type);
      const deltas = types.filter((type) => type === 'response.output_text.delta').length;
      expect(deltas).toBe(3);
      expect(types).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...Array<string>(deltas).fill('response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
      const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
      expect(text).toBe('one two three');
      const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
      expect(completed.response).toMatchObject({
        status: 'completed',
        output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'one two three' }] }],
        usage: { output_tokens: 3 },
      });

      // The wire: `event:` lines naming each type, and nothing after response.completed.
      const raw = await client.responses.create({ model: PLAIN, input: 'Count', stream: true }).asResponse();
      const wire = await namedSseEvents(raw);
      expect(wire.every((event) => event.event === (JSON.parse(event.data) as { type: string }).type)).toBe(true);
      expect(wire.at(-1)?.event).toBe('response.completed');
      expect(wire.some((event) => event.data === '[DONE]')).toBe(false);
    });

    it("gives the SDK's stream helper the final response", async () => {
      fake.setModel(MODEL, { response: 'Streamed whole.' });
      const final = await client.responses.stream({ model: PLAIN, input: 'Say it' }).finalResponse();
      expect(final.status).toBe('completed');
      expect(final.output_text).toBe('Streamed whole.');
    });

    it('answers a function call item, and the final answer once its output is sent back as input', async () => {
      fake.setModel(MODEL, WEATHER_TURNS);
      const tools: OpenAI.Responses.FunctionTool[] = [
        {
          type: 'function',
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: WEATHER_TOOL.function.parameters ?? null,
          strict: true,
        },
      ];
      const from = fake.requests.length;
      const first = await client.responses.create({ model: PLAIN, input: 'Weather in Oslo?', tools });
      expect(first.output).toEqual([
        expect.objectContaining({ type: 'function_call', call_id: 'call_fake_0_0', name: 'get_weather', arguments: '{"city":"Oslo"}' }),
      ]);
      expect(first.output_text).toBe('');
      const [call] = first.output as OpenAI.Responses.ResponseFunctionToolCall[];
      expect(toolNamesOf(sentTo(MODEL, from)[0])).toEqual(['get_weather']);
      const second = await client.responses.create({
        model: PLAIN,
        tools,
        input: [
          { role: 'user', content: 'Weather in Oslo?' },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' },
        ],
      });
      expect(second.output_text).toBe('It is sunny in Oslo.');
      const [, answered] = sentTo(MODEL, from);
      expect(answered.toolRounds).toBe(1);
      expect(JSON.stringify(messagesOf(answered).find((message) => message.role === 'tool'))).toContain('sunny');
    });

    it('answers a text.format json_schema with JSON matching it', async () => {
      fake.setModel(MODEL, { json: { answer: 'valid', value: PARIS } });
      const response = await client.responses.create({
        model: PLAIN,
        input: 'The largest city of France?',
        text: { format: { type: 'json_schema', name: 'place', schema: PLACE_SCHEMA, strict: true } },
      });
      expect(JSON.parse(response.output_text)).toEqual(PARIS);
    });
  });

  /** `models.list()` and `models.retrieve()`: every deployment variant and agent of the key's workspace, ids with `/`. */
  describe('models', () => {
    it('lists the deployment variants and the agent', async () => {
      const models = [];
      for await (const model of client.models.list()) models.push(model);
      expect(models.map((model) => model.id).sort()).toEqual([`agent/${agent.id}`, HELPDESK, PLAIN].sort());
      expect(models.every((model) => model.object === 'model' && model.owned_by === 'waggle' && Number.isInteger(model.created))).toBe(
        true,
      );
    });

    it('retrieves a model by an id holding slashes', async () => {
      await expect(client.models.retrieve(HELPDESK)).resolves.toMatchObject({ id: HELPDESK, object: 'model', owned_by: 'waggle' });
      await expect(client.models.retrieve(`agent/${agent.id}`)).resolves.toMatchObject({ id: `agent/${agent.id}` });
    });
  });

  /**
   * Refusals as OpenAI's error object, which the SDK reads into its exception classes: status,
   * code, param, and the run's request id from `x-request-id`.
   */
  describe('errors as the SDK exception classes', () => {
    const expectRequestId = (error: APIError) => {
      expect(error.requestID).toMatch(REQUEST_ID);
      expect(error.headers?.get('x-request-id')).toBe(error.requestID);
    };

    it('BadRequestError for a missing template variable names inputs.<name>, and nothing reaches the model', async () => {
      const from = fake.requests.length;
      const error = await refusal(() => client.chat.completions.create({ model: HELPDESK, messages: [{ role: 'user', content: 'Hi' }] }));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, param: 'inputs.product', code: 'validation_error', type: 'invalid_request_error' });
      expect(error.message).toContain('product');
      expectRequestId(error);
      expect(error.headers?.get('x-should-retry')).toBe('false');
      expect(sentTo(MODEL, from)).toEqual([]);
    });

    it.each([
      ['n > 1', { n: 2 }, 'n'],
      ['logprobs', { logprobs: true }, 'logprobs'],
      ['audio', { audio: { voice: 'alloy', format: 'mp3' } }, 'audio'],
      ['an invalid message role', { messages: [{ role: 'wizard', content: 'Hi' }] }, 'messages[0].role'],
    ])('BadRequestError naming the parameter for %s', async (_, extra, param) => {
      const body = { model: PLAIN, messages: [{ role: 'user', content: 'Hi' }], ...extra } as ChatCompletionCreateParamsNonStreaming;
      const error = await refusal(() => client.chat.completions.create(body));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, param });
      expectRequestId(error);
    });

    it('BadRequestError for previous_response_id (nothing is stored)', async () => {
      const error = await refusal(() => client.responses.create({ model: PLAIN, input: 'Hi', previous_response_id: 'resp_123' }));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, param: 'previous_response_id' });
    });

    it('AuthenticationError for a bad key', async () => {
      const stranger = new OpenAI({ baseURL, apiKey: `wgl_${'a'.repeat(40)}`, maxRetries: 0 });
      const error = await refusal(() => stranger.chat.completions.create({ model: PLAIN, messages: [{ role: 'user', content: 'Hi' }] }));
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ status: 401, type: 'authentication_error', code: 'invalid_api_key' });
      expectRequestId(error);
    });

    it.each([
      ['an unknown deployment', 'prompt/nowhere/default'],
      ['an unknown variant', 'prompt/helpdesk/nope'],
      ['an unknown agent id', `agent/${randomUUID()}`],
      ['an unknown agent name', 'agent/Nobody'],
      ['an OpenAI model name', 'gpt-4o'],
    ])('NotFoundError model_not_found for %s', async (_, model) => {
      const error = await refusal(() => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] }));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ status: 404, code: 'model_not_found' });
      expectRequestId(error);
    });

    it('NotFoundError model_not_found retrieving an unknown model, unsupported_endpoint for embeddings', async () => {
      const unknown = await refusal(() => client.models.retrieve('prompt/nowhere/default'));
      expect(unknown).toBeInstanceOf(NotFoundError);
      expect(unknown.code).toBe('model_not_found');
      const embeddings = await refusal(() => client.embeddings.create({ model: PLAIN, input: 'Hi' }));
      expect(embeddings).toBeInstanceOf(NotFoundError);
      expect(embeddings).toMatchObject({ status: 404, code: 'unsupported_endpoint' });
      expectRequestId(embeddings);
    });

    it('UnprocessableEntityError when an Idempotency-Key comes back with another body; the same body replays the answer', async () => {
      const idempotencyKey = `oa-${randomUUID()}`;
      const options = { headers: { 'Idempotency-Key': idempotencyKey } };
      const from = fake.requests.length;
      const first = await client.chat.completions
        .create({ model: PLAIN, messages: [{ role: 'user', content: 'Once' }] }, options)
        .withResponse();
      const replay = await client.chat.completions
        .create({ model: PLAIN, messages: [{ role: 'user', content: 'Once' }] }, options)
        .withResponse();
      expect(replay.data.choices[0].message.content).toBe(first.data.choices[0].message.content);
      expect(replay.data.id).toBe(first.data.id);
      expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
      // The answer is the first run's: so is its x-request-id, which the ledger knows.
      expect(replay.request_id).toBe(first.request_id);
      expect(sentTo(MODEL, from)).toHaveLength(1);
      const error = await refusal(() =>
        client.chat.completions.create({ model: PLAIN, messages: [{ role: 'user', content: 'Something else' }] }, options),
      );
      expect(error).toBeInstanceOf(UnprocessableEntityError);
      expect(error).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
      expectRequestId(error);
    });

    it('RateLimitError at the daily cap, which the SDK does not retry (x-should-retry: false) even with retries on', async () => {
      const capped = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e openai cap']);
      await cliJson(['workspace', 'set-limits', capped.workspace_id, '--rate-limit-per-day', '1']);
      await applyDefinitions(DEFINITIONS, capped.workspace_id);
      let calls = 0;
      const counting: typeof fetch = (input, init) => {
        calls += 1;
        return fetch(input, init);
      };
      const retrying = new OpenAI({ baseURL, apiKey: capped.api_key, maxRetries: 2, fetch: counting });
      const allowed = await retrying.chat.completions.create({ model: PLAIN, messages: [{ role: 'user', content: 'One' }] });
      expect(allowed.choices[0].message.content).toBe('Echo: One');
      calls = 0;
      const error = await refusal(() => retrying.chat.completions.create({ model: PLAIN, messages: [{ role: 'user', content: 'Two' }] }));
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, code: 'api_rate_limit_exceeded', type: 'rate_limit_error' });
      expect(error.headers?.get('x-should-retry')).toBe('false');
      expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
      expectRequestId(error);
      expect(calls).toBe(1);
    });
  });

  /**
   * `Idempotency-Key` as on the native routes, seen by the SDK: a repeat replays the first answer
   * (a stream as the same chunks), and a repeat while the first still runs is a 409 the SDK
   * retries (x-should-retry: true) until the answer is there.
   */
  describe('Idempotency-Key', () => {
    it('replays a streamed answer as the same chunks, which the SDK reads again', async () => {
      fake.setModel(MODEL, { response: 'one two three' });
      const options = { headers: { 'Idempotency-Key': `oa-${randomUUID()}` } };
      const request = { model: PLAIN, messages: [{ role: 'user' as const, content: 'Count' }], stream: true as const };
      const read = async () => {
        const chunks: ChatCompletionChunk[] = [];
        for await (const chunk of await client.chat.completions.create(request, options)) chunks.push(chunk);
        return chunks;
      };
      const from = fake.requests.length;
      const first = await read();
      const replayed = await read();
      expect(sentTo(MODEL, from)).toHaveLength(1);
      expect(replayed.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('one two three');
      expect(replayed.map((chunk) => [chunk.object, chunk.id, chunk.choices[0]?.finish_reason])).toEqual(
        first.map((chunk) => [chunk.object, chunk.id, chunk.choices[0]?.finish_reason]),
      );
    });

    it('replays a streamed Responses answer as the same events', async () => {
      fake.setModel(MODEL, { response: 'one two' });
      const options = { headers: { 'Idempotency-Key': `oa-${randomUUID()}` } };
      const read = async () => {
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        for await (const event of await client.responses.create({ model: PLAIN, input: 'Count', stream: true }, options))
          events.push(event);
        return events;
      };
      const from = fake.requests.length;
      const first = await read();
      const replayed = await read();
      expect(sentTo(MODEL, from)).toHaveLength(1);
      expect(replayed.map((event) => [event.type, event.sequence_number])).toEqual(
        first.map((event) => [event.type, event.sequence_number]),
      );
      expect(replayed.at(-1)).toMatchObject({
        type: 'response.completed',
        response: { id: (first.at(-1) as { response: { id: string } }).response.id },
      });
    });

    it('answers a repeat while the first runs with a retryable 409, which the SDK retries into the replayed answer', async () => {
      const release = fake.hold(MODEL);
      const options = { headers: { 'Idempotency-Key': `oa-${randomUUID()}` } };
      const body = { model: PLAIN, messages: [{ role: 'user' as const, content: 'Patience' }] };
      const from = fake.requests.length;
      const first = client.chat.completions.create(body, options);
      await fake.waitForRequest((record) => record.model === MODEL && record.lastUserText === 'Patience');
      const statuses: number[] = [];
      const watching: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        // The first still runs while the repeat is refused: let it finish, and hand the SDK its 409 only once the first
        // has answered (its answer is kept before it is sent), so the retry finds it whatever the SDK's back-off.
        if (response.status === 409) {
          release();
          await first;
        }
        return response;
      };
      const retrying = new OpenAI({ baseURL, apiKey: key, maxRetries: 5, fetch: watching });
      const repeat = await retrying.chat.completions.create(body, options).finally(release);
      expect(statuses[0]).toBe(409);
      expect(statuses.at(-1)).toBe(200);
      const answered = await first;
      expect(repeat.choices[0].message.content).toBe('Echo: Patience');
      expect(repeat.id).toBe(answered.id);
      expect(sentTo(MODEL, from)).toHaveLength(1);
    });
  });

  /**
   * An agent over Chat Completions: its thread from `X-Waggle-Thread-Id` across requests, its
   * own tool loop (knowledge_search) run inside the turn and never returned as `tool_calls`,
   * caller tools refused, and the agent named by its unique name.
   */
  describe('agents', () => {
    const AGENT = () => `agent/${agent.id}`;
    const searchThenAnswer = {
      turns: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'opening hours' } }] }, { response: 'We open at nine.' }],
    };

    it('keeps a conversation in its thread across three requests; the tool loop runs inside and its calls are not returned', async () => {
      const thread = `oa-thread-${randomUUID()}`;
      const headers = { 'X-Waggle-Thread-Id': thread };
      const from = fake.requests.length;

      fake.setModel(AGENT_MODEL, { response: 'Nice to meet you, Ada.' });
      const history: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'My name is Ada.' }];
      const first = await client.chat.completions.create({ model: AGENT(), messages: history }, { headers }).withResponse();
      expect(first.response.headers.get('x-waggle-thread-id')).toBe(thread);
      expect(first.data).toMatchObject({
        model: AGENT(),
        choices: [{ message: { content: 'Nice to meet you, Ada.' }, finish_reason: 'stop' }],
      });
      history.push(first.data.choices[0].message);

      fake.setModel(AGENT_MODEL, { ...searchThenAnswer, usage: { promptTokens: 10, completionTokens: 2 } });
      history.push({ role: 'user', content: 'When do you open?' });
      const second = await client.chat.completions.create({ model: AGENT(), messages: history }, { headers }).withResponse();
      expect(second.response.headers.get('x-waggle-thread-id')).toBe(thread);
      expect(second.data.choices[0]).toMatchObject({ message: { content: 'We open at nine.' }, finish_reason: 'stop' });
      expect(second.data.choices[0].message.tool_calls).toBeUndefined();
      // Two model calls in the turn: the search, then the answer with its observation; usage sums both.
      const searched = sentTo(AGENT_MODEL, from).slice(1);
      expect(searched).toHaveLength(2);
      expect(toolNamesOf(searched[0])).toEqual(['knowledge_search']);
      expect(messagesOf(searched[1]).some((message) => message.role === 'tool')).toBe(true);
      expect(second.data.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 });
      history.push(second.data.choices[0].message);

      fake.setModel(AGENT_MODEL, { response: 'Your name is Ada.' });
      history.push({ role: 'user', content: 'What is my name?' });
      const third = await client.chat.completions.create({ model: AGENT(), messages: history }, { headers }).withResponse();
      expect(third.data.choices[0].message.content).toBe('Your name is Ada.');
      // The third call saw the earlier turns from the thread, each once, though the client sent its whole history again.
      const [last] = sentTo(AGENT_MODEL, from).slice(-1);
      const texts = messagesOf(last).map((message) => JSON.stringify(message.content));
      for (const earlier of ['My name is Ada.', 'Nice to meet you, Ada.', 'When do you open?', 'We open at nine.', 'What is my name?'])
        expect(texts.filter((text) => text.includes(earlier))).toHaveLength(1);
      expect(messagesOf(last).at(-1)).toMatchObject({ role: 'user' });
    });

    it('streams an agent turn with its tool loop as text only: no tool_calls deltas, the thread header on the answer', async () => {
      fake.setModel(AGENT_MODEL, searchThenAnswer);
      const thread = `oa-thread-${randomUUID()}`;
      const response = await client.chat.completions
        .create(
          {
            model: AGENT(),
            messages: [{ role: 'user', content: 'When do you open?' }],
            stream: true,
            stream_options: { include_usage: true },
          },
          { headers: { 'X-Waggle-Thread-Id': thread } },
        )
        .asResponse();
      expect(response.headers.get('x-waggle-thread-id')).toBe(thread);
      const events = await collectSse(response);
      expect(events.at(-1)).toBe('[DONE]');
      const chunks = events.slice(0, -1) as ChatCompletionChunk[];
      const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
      expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('We open at nine.');
      expect(deltas.some((delta) => delta.tool_calls !== undefined)).toBe(false);
      expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
      expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
    });

    it('takes the thread from the body thread_id, and answers by the agent’s unique name', async () => {
      fake.setModel(AGENT_MODEL, { response: 'Hello by name.' });
      const thread = `oa-thread-${randomUUID()}`;
      const body: ChatCompletionCreateParamsNonStreaming & { thread_id: string } = {
        model: 'agent/Concierge',
        messages: [{ role: 'user', content: 'Hi' }],
        thread_id: thread,
      };
      const { data, response, request_id } = await client.chat.completions.create(body).withResponse();
      expect(data).toMatchObject({ model: 'agent/Concierge', choices: [{ message: { content: 'Hello by name.' } }] });
      expect(response.headers.get('x-waggle-thread-id')).toBe(thread);
      const record = await ledgerRecord(request_id ?? '');
      expect(record.surface).toBe('openai');
    });

    it('without a thread, the earlier caller messages are the history', async () => {
      fake.setModel(AGENT_MODEL, { response: 'Noted.' });
      const from = fake.requests.length;
      await client.chat.completions.create({
        model: AGENT(),
        messages: [
          { role: 'user', content: 'I like tea.' },
          { role: 'assistant', content: 'Tea it is.' },
          { role: 'user', content: 'And biscuits.' },
        ],
      });
      const [sent] = sentTo(AGENT_MODEL, from);
      expect(messagesOf(sent).slice(1)).toEqual([
        { role: 'user', content: 'I like tea.' },
        { role: 'assistant', content: 'Tea it is.' },
        { role: 'user', content: 'And biscuits.' },
      ]);
    });

    it('refuses caller tools for an agent: 400 naming tools', async () => {
      const error = await refusal(() =>
        client.chat.completions.create({ model: AGENT(), messages: [{ role: 'user', content: 'Hi' }], tools: [WEATHER_TOOL] }),
      );
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, param: 'tools' });
    });
  });

  /**
   * Streams that end early: a provider failing after the first streamed byte (an error frame,
   * then [DONE]), and a client leaving (the run is cancelled, as on the native routes).
   */
  describe('streams that end early', () => {
    it('ends the chat stream with an error frame and [DONE]; iterating the SDK stream throws an APIError', async () => {
      fake.setModel(MODEL, { response: 'a b c d e f', failAfterFragments: 2 });
      const raw = await client.chat.completions
        .create({ model: PLAIN, messages: [{ role: 'user', content: 'Go' }], stream: true })
        .asResponse();
      const events = await collectSse(raw);
      expect(events.at(-1)).toBe('[DONE]');
      expect(events.at(-2)).toEqual({
        error: { message: expect.any(String), type: 'server_error', param: null, code: 'provider_error' },
      });
      const content = (events.slice(0, -2) as ChatCompletionChunk[]).map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
      expect(content).toBe('a b ');

      const received: string[] = [];
      const stream = await client.chat.completions.create({ model: PLAIN, messages: [{ role: 'user', content: 'Go' }], stream: true });
      const thrown = await (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(thrown).toBeInstanceOf(APIError);
      expect((thrown as APIError).code).toBe('provider_error');
      expect(received.join('')).toBe('a b ');
    });

    it('cancels the run when the SDK stream is left mid-way: the provider call is aborted, the ledger says cancelled', async () => {
      fake.setModel(MODEL, { response: 'one two three four five' });
      const gate = fake.gate(MODEL, 1);
      const { data: stream, request_id: requestId } = await client.chat.completions
        .create({ model: PLAIN, messages: [{ role: 'user', content: 'Talk' }], stream: true })
        .withResponse();
      let received = '';
      // Leaving the loop aborts the SDK's request.
      for await (const chunk of stream) {
        received += chunk.choices[0]?.delta.content ?? '';
        if (received !== '') break;
      }
      expect(received).toBe('one ');
      const held = await gate.reached;
      await expectEventually(() => expect(fake.requests.find((record) => record.id === held.id)).toMatchObject({ aborted: true }));
      await expectEventually(async () =>
        expect(await getJson<RequestLookup>(`/v1/public/requests/${requestId}`)).toMatchObject({ status: 'cancelled', surface: 'openai' }),
      );
    });

    it('ends the Responses stream with response.failed carrying the error', async () => {
      fake.setModel(MODEL, { response: 'a b c d e f', failAfterFragments: 2 });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of await client.responses.create({ model: PLAIN, input: 'Go', stream: true })) events.push(event);
      const last = events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
      expect(last.type).toBe('response.failed');
      expect(last.response).toMatchObject({ status: 'failed', error: { code: 'provider_error' } });
      expect(events.map((event) => event.type)).not.toContain('response.completed');
    });
  });

  /**
   * The Vercel AI SDK as a second client: its OpenAI-compatible provider (Chat Completions:
   * whole, streamed with usage, a tool loop, a JSON schema) and its OpenAI provider's Responses model.
   */
  describe('the AI SDK as a client', () => {
    const compatible = () =>
      createOpenAICompatible({ name: 'waggle', baseURL, apiKey: key, includeUsage: true, supportsStructuredOutputs: true });
    const weather = () =>
      tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string }>(WEATHER_TOOL.function.parameters as never),
        execute: async ({ city }) => ({ city, sky: 'sunny' }),
      });

    it('generates text with usage and the stop finish reason', async () => {
      fake.setModel(MODEL, { response: 'Hello from Waggle.', usage: { promptTokens: 9, completionTokens: 3 } });
      const result = await generateText({ model: compatible()(PLAIN), prompt: 'Hi', maxRetries: 0 });
      expect(result.text).toBe('Hello from Waggle.');
      expect(result.finishReason).toBe('stop');
      expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 3, totalTokens: 12 });
      expect(result.response.headers?.['x-request-id']).toMatch(REQUEST_ID);
    });

    it('streams text with the usage of the last chunk', async () => {
      fake.setModel(MODEL, { response: 'one two three', usage: { promptTokens: 4, completionTokens: 3 } });
      const result = streamText({ model: compatible()(PLAIN), prompt: 'Count', maxRetries: 0 });
      const parts: string[] = [];
      for await (const part of result.textStream) parts.push(part);
      expect(parts.join('')).toBe('one two three');
      expect(parts.length).toBeGreaterThan(1);
      expect(await result.usage).toMatchObject({ inputTokens: 4, outputTokens: 3, totalTokens: 7 });
      expect(await result.finishReason).toBe('stop');
    });

    it('runs a tool loop: the model calls the tool, the SDK sends its result back, the model answers', async () => {
      fake.setModel(MODEL, WEATHER_TURNS);
      const from = fake.requests.length;
      const result = await generateText({
        model: compatible()(PLAIN),
        prompt: 'Weather in Oslo?',
        tools: { get_weather: weather() },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      expect(result.text).toBe('It is sunny in Oslo.');
      expect(result.steps[0].toolCalls).toEqual([expect.objectContaining({ toolName: 'get_weather', input: { city: 'Oslo' } })]);
      expect(result.steps[0].finishReason).toBe('tool-calls');
      const [, answered] = sentTo(MODEL, from);
      expect(JSON.stringify(messagesOf(answered).find((message) => message.role === 'tool'))).toContain('sunny');
    });

    it('runs the same tool loop streamed', async () => {
      fake.setModel(MODEL, WEATHER_TURNS);
      const result = streamText({
        model: compatible()(PLAIN),
        prompt: 'Weather in Oslo?',
        tools: { get_weather: weather() },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      let text = '';
      for await (const part of result.textStream) text += part;
      expect(text).toBe('It is sunny in Oslo.');
      const steps = await result.steps;
      expect(steps[0].toolCalls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', { city: 'Oslo' }]]);
    });

    it('answers a JSON schema output', async () => {
      fake.setModel(MODEL, { json: { answer: 'valid', value: PARIS } });
      const from = fake.requests.length;
      const result = await generateText({
        model: compatible()(PLAIN),
        prompt: 'The largest city of France?',
        output: Output.object({ schema: jsonSchema<typeof PARIS>(PLACE_SCHEMA as never) }),
        maxRetries: 0,
      });
      expect(result.output).toEqual(PARIS);
      expect(sentTo(MODEL, from)[0].structured).toBe('json_schema');
    });

    it("generates and streams through the OpenAI provider's Responses model", async () => {
      const responses = createOpenAI({ baseURL, apiKey: key }).responses(PLAIN);
      fake.setModel(MODEL, { response: 'Via Responses.', usage: { promptTokens: 3, completionTokens: 2 } });
      const whole = await generateText({ model: responses, prompt: 'Hi', maxRetries: 0 });
      expect(whole.text).toBe('Via Responses.');
      expect(whole.usage).toMatchObject({ inputTokens: 3, outputTokens: 2 });
      fake.setModel(MODEL, { response: 'one two three' });
      const streamed = streamText({ model: responses, prompt: 'Count', maxRetries: 0 });
      let text = '';
      for await (const part of streamed.textStream) text += part;
      expect(text).toBe('one two three');
      expect(await streamed.finishReason).toBe('stop');
    });
  });
});

/** Every event of a server-sent event stream with its `event:` name (the Responses stream names each one). */
async function namedSseEvents(response: Response): Promise<Array<{ event?: string; data: string }>> {
  const events: Array<{ event?: string; data: string }> = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event, data: event.data }) });
  parser.feed(await response.text());
  return events;
}
