import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, streamText, type LanguageModel } from 'ai';
import type { FakeProtocol } from '../src';
import { useFakeProvider } from './fake-server';

/** What one call through the AI SDK ended with: the text, or the error it failed with. */
interface Outcome {
  text?: string;
  error?: unknown;
}

const MODES = [
  ['openai', false],
  ['openai', true],
  ['anthropic', false],
  ['anthropic', true],
] as const;

describe('fake provider: scripted failures per model', () => {
  const { server, url } = useFakeProvider();

  const model = (protocol: FakeProtocol, id: string): LanguageModel =>
    protocol === 'openai'
      ? createOpenAI({ baseURL: `${url()}/v1`, apiKey: 'sk-test' }).chat(id)
      : createAnthropic({ baseURL: `${url()}/v1`, apiKey: 'sk-ant-test' })(id);

  /** One call, streamed or not; a streamed call's error arrives as a part, as the SDK reports it. */
  const call = async (protocol: FakeProtocol, id: string, stream: boolean, abortSignal?: AbortSignal): Promise<Outcome> => {
    const settings = { model: model(protocol, id), prompt: 'hello', maxOutputTokens: 100, maxRetries: 0, abortSignal };
    if (!stream)
      return generateText(settings).then(
        ({ text }) => ({ text }),
        (error: unknown) => ({ error }),
      );
    const result = streamText({ ...settings, onError: () => undefined });
    let text = '';
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'error') return { error: part.error };
      if (part.type === 'abort') return { error: part };
    }
    return { text };
  };

  describe.each(MODES)('%s, streaming %s', (protocol, stream) => {
    it.each([429, 500])('answers a scripted %d for that model while another model answers', async (status) => {
      server.setModel('broken', { error: { status, message: `scripted ${status}` } });
      server.setModel('healthy', { response: 'All good.' });

      const failed = await call(protocol, 'broken', stream);
      expect(APICallError.isInstance(failed.error)).toBe(true);
      expect(failed.error).toMatchObject({ statusCode: status, message: `scripted ${status}` });
      if (status === 429) expect((failed.error as APICallError).responseHeaders).toMatchObject({ 'retry-after': '1' });
      expect(await call(protocol, 'healthy', stream)).toEqual({ text: 'All good.' });

      expect(server.requests.map((record) => [record.model, record.protocol, record.stream, record.status])).toEqual([
        ['broken', protocol, stream, status],
        ['healthy', protocol, stream, 200],
      ]);
    });

    it('hangs a model (no headers, nothing) until the client goes away, while another model answers', async () => {
      // Scripted over HTTP, as another process would.
      const put = await fetch(`${url()}/_fake/models/stuck`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ hang: true, response: 'never sent' }),
      });
      expect(put.status).toBe(200);
      server.setModel('healthy', { response: 'All good.' });

      const controller = new AbortController();
      let settled = false;
      const hanging = call(protocol, 'stuck', stream, controller.signal).finally(() => (settled = true));
      const record = await server.waitForRequest((candidate) => candidate.model === 'stuck');
      expect(record).toMatchObject({ protocol, stream, lastUserText: 'hello', aborted: false });

      expect(await call(protocol, 'healthy', stream)).toEqual({ text: 'All good.' });
      // Nothing went out: no status (headers), no end, and the client is still waiting.
      expect(record.status).toBeUndefined();
      expect(record.finishedAt).toBeUndefined();
      expect(settled).toBe(false);

      controller.abort();
      const outcome = await hanging;
      expect(outcome.text).toBeUndefined();
      await expect(server.waitForRequest((candidate) => candidate.model === 'stuck' && candidate.aborted)).resolves.toMatchObject({
        abortedAt: expect.any(Number),
      });
      expect(record.status).toBeUndefined();
    });
  });

  it('answers again once hang is turned off for the model', async () => {
    server.setModel('stuck', { hang: true });
    const controller = new AbortController();
    const hanging = call('openai', 'stuck', false, controller.signal);
    await server.waitForRequest((candidate) => candidate.model === 'stuck');
    controller.abort();
    await hanging;
    server.setModel('stuck', { hang: false, response: 'Back.' });
    expect(await call('openai', 'stuck', false)).toEqual({ text: 'Back.' });
  });

  it('refuses a hang that is not a boolean over HTTP', async () => {
    const put = await fetch(`${url()}/_fake/models/stuck`, { method: 'PUT', body: JSON.stringify({ hang: 'yes' }) });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({ error: { message: 'hang must be true or false', type: 'invalid_behaviour' } });
  });
});
