import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, NoObjectGeneratedError, Output, streamText, type LanguageModel, type ModelMessage } from 'ai';
import { z } from 'zod';
import { useFakeProvider } from './fake-server';
import { parseSse, postJson } from './sse';

const city = z.object({ name: z.string(), population: z.number().int().min(1), tags: z.array(z.string()), note: z.string().optional() });
const MINIMAL_CITY = { name: 'example', population: 1, tags: [] };
const JSON_TOOL = { anthropic: { structuredOutputMode: 'jsonTool' } } as const;
const ANTHROPIC_HEADERS = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };

/** The conversation a caller sends after a failed structured answer: the bad answer, then a prompt to fix it. */
const repair = (badAnswer: string): ModelMessage[] => [
  { role: 'user', content: 'Describe a city.' },
  { role: 'assistant', content: badAnswer },
  { role: 'user', content: 'That did not match the schema; answer again.' },
];

/** The structured output of a streamed answer, with the text fragments and partial objects it came in. */
async function streamOutput(
  model: LanguageModel,
  options: { prompt?: string; messages?: ModelMessage[]; providerOptions?: typeof JSON_TOOL },
): Promise<{ output: unknown; textFragments: number; partials: number }> {
  const result = streamText({
    model,
    ...(options.messages ? { messages: options.messages } : { prompt: options.prompt ?? 'Describe a city.' }),
    output: Output.object({ schema: city }),
    maxOutputTokens: 1_000,
    maxRetries: 0,
    providerOptions: options.providerOptions,
    onError: () => undefined,
  });
  let textFragments = 0;
  let partials = 0;
  const reading = (async () => {
    for await (const part of result.fullStream) if (part.type === 'text-delta') textFragments += 1;
  })();
  for await (const _partial of result.partialOutputStream) partials += 1;
  await reading;
  const output = await Promise.resolve(result.output).catch((error: unknown) => error);
  return { output, textFragments, partials };
}

describe('fake provider: structured (JSON) answers', () => {
  const { server, url } = useFakeProvider();

  describe('OpenAI chat completions (response_format json_schema)', () => {
    const model = () => createOpenAI({ baseURL: `${url()}/v1`, apiKey: 'sk-test' }).chat('gpt-structured');
    const generate = (messages?: ModelMessage[]) =>
      generateText({
        model: model(),
        ...(messages ? { messages } : { prompt: 'Describe a city.' }),
        output: Output.object({ schema: city }),
        maxRetries: 0,
      });

    it('answers the smallest instance of the schema, and records the native request', async () => {
      server.setModel('gpt-structured', { json: { answer: 'valid' } });
      const result = await generate();
      expect(result.output).toEqual(MINIMAL_CITY);
      const [record] = server.requests;
      expect(record).toMatchObject({
        structured: 'json_schema',
        strict: true,
        schema: { type: 'object', required: ['name', 'population', 'tags'] },
        jsonAnswer: 'valid',
        lastUserText: 'Describe a city.',
      });
      expect(record.body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'response', strict: true } } });
    });

    it('streams a scripted value in pieces that parse partially on the way', async () => {
      const value = { name: 'Oslo', population: 709_000, tags: ['capital', 'fjord'] };
      server.setModel('gpt-structured', { json: { answer: 'valid', value } });
      const { output, textFragments, partials } = await streamOutput(model(), {});
      expect(output).toEqual(value);
      expect(textFragments).toBeGreaterThan(1);
      expect(partials).toBeGreaterThan(1);
      expect(server.requests[0]).toMatchObject({ stream: true, structured: 'json_schema', jsonAnswer: 'valid' });
    });

    it('answers invalid once, then valid to the repair request; setting the behaviour again starts over', async () => {
      server.setModel('gpt-structured', { json: { answer: 'invalid_once' } });
      const failure = await generate().catch((error: unknown) => error);
      expect(NoObjectGeneratedError.isInstance(failure)).toBe(true);
      const badText = (failure as NoObjectGeneratedError).text ?? '';
      expect(JSON.parse(badText)).toEqual({ population: 1, tags: [] });

      const repaired = await generate(repair(badText));
      expect(repaired.output).toEqual(MINIMAL_CITY);
      expect(server.requests.map((record) => record.jsonAnswer)).toEqual(['invalid', 'valid']);
      expect(server.requests[1].lastUserText).toBe('That did not match the schema; answer again.');
      expect(server.requests[1].body).toMatchObject({
        messages: [{ role: 'user' }, { role: 'assistant', content: badText }, { role: 'user' }],
      });

      expect((await generate()).output).toEqual(MINIMAL_CITY);
      server.setModel('gpt-structured', { json: { answer: 'invalid_once' } });
      expect(NoObjectGeneratedError.isInstance(await generate().catch((error: unknown) => error))).toBe(true);
    });

    it('answers invalid every time, streaming too, the scripted invalidValue when given', async () => {
      server.setModel('gpt-structured', { json: { answer: 'invalid', invalidValue: { name: 42 } } });
      for (let attempt = 0; attempt < 2; attempt++) {
        const failure = await generate().catch((error: unknown) => error);
        expect(failure).toMatchObject({ name: 'AI_NoObjectGeneratedError', text: '{"name":42}' });
      }
      const streamed = await streamOutput(model(), {});
      expect(NoObjectGeneratedError.isInstance(streamed.output)).toBe(true);
      expect(server.requests.map((record) => record.jsonAnswer)).toEqual(['invalid', 'invalid', 'invalid']);
    });

    it('answers JSON text, {} without a value, to a prompt that only asks for JSON', async () => {
      server.setModel('gpt-structured', { json: { answer: 'valid' } });
      const plain = await generateText({ model: model(), prompt: 'Answer in JSON.', maxRetries: 0 });
      expect(plain.text).toBe('{}');
      expect(server.requests[0]).toMatchObject({ structured: null, jsonAnswer: 'valid' });
      expect(server.requests[0]).not.toHaveProperty('schema');
    });

    it('answers a model without a json behaviour as before, while another model answers JSON', async () => {
      server.setModel('gpt-structured', { json: { answer: 'valid' } });
      server.setModel('gpt-plain', { response: 'Just text.' });
      const plain = await generateText({
        model: createOpenAI({ baseURL: `${url()}/v1`, apiKey: 'sk-test' }).chat('gpt-plain'),
        prompt: 'x',
        maxRetries: 0,
      });
      expect(plain.text).toBe('Just text.');
      expect((await generate()).output).toEqual(MINIMAL_CITY);
    });

    it('scripts json over HTTP, and PUT again resets invalid_once', async () => {
      const put = (body: unknown) =>
        fetch(`${url()}/_fake/models/gpt-structured`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await put({ json: { answer: 'invalid_once', value: { name: 'Rome', population: 2, tags: [] } } })).status).toBe(200);
      expect(NoObjectGeneratedError.isInstance(await generate().catch((error: unknown) => error))).toBe(true);
      expect((await generate()).output).toEqual({ name: 'Rome', population: 2, tags: [] });
      await put({ json: { answer: 'invalid_once' } });
      expect(NoObjectGeneratedError.isInstance(await generate().catch((error: unknown) => error))).toBe(true);
      expect((await generate()).output).toEqual(MINIMAL_CITY);
    });
  });

  describe('Anthropic messages (structuredOutputMode jsonTool)', () => {
    const model = () => createAnthropic({ baseURL: `${url()}/v1`, apiKey: 'sk-ant-test' })('claude-structured');
    const generate = (messages?: ModelMessage[]) =>
      generateText({
        model: model(),
        ...(messages ? { messages } : { prompt: 'Describe a city.' }),
        output: Output.object({ schema: city }),
        maxOutputTokens: 1_000,
        maxRetries: 0,
        providerOptions: JSON_TOOL,
      });

    it('answers a tool_use block named json, which the SDK reads as the output, and records the forced tool', async () => {
      server.setModel('claude-structured', { json: { answer: 'valid' } });
      const result = await generate();
      expect(result.output).toEqual(MINIMAL_CITY);
      expect(result.finishReason).toBe('stop');
      const [record] = server.requests;
      expect(record).toMatchObject({
        protocol: 'anthropic',
        structured: 'json_tool',
        schema: { type: 'object', required: ['name', 'population', 'tags'] },
        jsonAnswer: 'valid',
      });
      expect(record.body).toMatchObject({ tools: [{ name: 'json' }], tool_choice: { type: 'any' } });
    });

    it('answers the tool_use block over plain HTTP, with stop_reason tool_use', async () => {
      server.setModel('claude-structured', { json: { answer: 'valid', value: { name: 'Lima', population: 3, tags: ['coast'] } } });
      const body = {
        model: 'claude-structured',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Describe a city.' }],
        tools: [{ name: 'json', input_schema: { type: 'object' } }],
        tool_choice: { type: 'tool', name: 'json' },
      };
      const message = (await (await postJson(`${url()}/v1/messages`, body, ANTHROPIC_HEADERS)).json()) as Record<string, unknown>;
      expect(message).toMatchObject({
        content: [{ type: 'tool_use', name: 'json', input: { name: 'Lima', population: 3, tags: ['coast'] } }],
        stop_reason: 'tool_use',
      });
      const events = parseSse(await (await postJson(`${url()}/v1/messages`, { ...body, stream: true }, ANTHROPIC_HEADERS)).text());
      const deltas = events
        .map((event) => JSON.parse(event.data) as { type: string; delta?: { type: string; partial_json?: string } })
        .filter((data) => data.delta?.type === 'input_json_delta')
        .map((data) => data.delta?.partial_json);
      expect(deltas.length).toBeGreaterThan(1);
      expect(JSON.parse(deltas.join(''))).toEqual({ name: 'Lima', population: 3, tags: ['coast'] });
    });

    it('streams the json tool input as input_json_delta pieces the SDK turns back into the output', async () => {
      const value = { name: 'Kyoto', population: 1_460_000, tags: ['temples'] };
      server.setModel('claude-structured', { json: { answer: 'valid', value } });
      const { output, textFragments, partials } = await streamOutput(model(), { providerOptions: JSON_TOOL });
      expect(output).toEqual(value);
      expect(textFragments).toBeGreaterThan(1);
      expect(partials).toBeGreaterThan(1);
      expect(server.requests[0]).toMatchObject({ stream: true, structured: 'json_tool', jsonAnswer: 'valid' });
    });

    it('answers invalid once (streaming), then valid to the repair request', async () => {
      server.setModel('claude-structured', { json: { answer: 'invalid_once' } });
      const first = await streamOutput(model(), { providerOptions: JSON_TOOL });
      expect(NoObjectGeneratedError.isInstance(first.output)).toBe(true);
      const badText = (first.output as NoObjectGeneratedError).text ?? '';
      expect(JSON.parse(badText)).toEqual({ population: 1, tags: [] });
      const second = await streamOutput(model(), { messages: repair(badText), providerOptions: JSON_TOOL });
      expect(second.output).toEqual(MINIMAL_CITY);
      expect(server.requests.map((record) => [record.jsonAnswer, record.lastUserText])).toEqual([
        ['invalid', 'Describe a city.'],
        ['valid', 'That did not match the schema; answer again.'],
      ]);
    });

    it('answers invalid every time', async () => {
      server.setModel('claude-structured', { json: { answer: 'invalid', invalidValue: 'not a city' } });
      for (let attempt = 0; attempt < 2; attempt++) {
        const failure = await generate().catch((error: unknown) => error);
        expect(failure).toMatchObject({ name: 'AI_NoObjectGeneratedError', text: '"not a city"' });
      }
      expect(server.requests.map((record) => record.jsonAnswer)).toEqual(['invalid', 'invalid']);
    });

    it('answers native output_config json_schema requests in a text block', async () => {
      server.setModel('claude-structured', { json: { answer: 'valid' } });
      // The SDK strips what native structured output cannot enforce (numeric bounds) from the
      // schema it sends, so this one has none: the fake answers what the request's schema allows.
      const result = await generateText({
        model: model(),
        prompt: 'Describe a city.',
        output: Output.object({ schema: z.object({ name: z.string(), tags: z.array(z.string()) }) }),
        maxOutputTokens: 1_000,
        maxRetries: 0,
        providerOptions: { anthropic: { structuredOutputMode: 'outputFormat' } },
      });
      expect(result.output).toEqual({ name: 'example', tags: [] });
      expect(server.requests[0]).toMatchObject({ structured: 'output_format', schema: { type: 'object' }, jsonAnswer: 'valid' });
      expect(server.requests[0].body).toMatchObject({ output_config: { format: { type: 'json_schema' } } });
    });

    it('answers JSON text to a prompt that only asks for JSON', async () => {
      server.setModel('claude-structured', { json: { answer: 'valid', value: { ok: true } } });
      const plain = await generateText({ model: model(), prompt: 'Answer in JSON.', maxOutputTokens: 1_000, maxRetries: 0 });
      expect(plain.text).toBe('{"ok":true}');
      expect(server.requests[0]).toMatchObject({ structured: null, jsonAnswer: 'valid' });
    });
  });
});
