import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { FakeProviderServer } from '../src';
import { streamText } from 'ai';
import { request as httpRequest } from 'node:http';
import { postJson } from './sse';

describe('fake provider: scripting, records and aborts', () => {
  const server = new FakeProviderServer({ response: 'default answer' });
  let url: string;

  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());
  afterEach(() => server.reset());

  const ask = async (model: string): Promise<string> => {
    const body = (await (await postJson(`${url}/v1/chat/completions`, { model, messages: [{ role: 'user', content: 'q' }] })).json()) as {
      choices: Array<{ message: { content: string } }>;
    };
    return body.choices[0].message.content;
  };

  it('answers the constructor defaults unless a model is scripted, in process or over HTTP', async () => {
    expect(await ask('any-model')).toBe('default answer');
    server.setModel('in-process', { response: 'scripted here' });
    const put = await fetch(`${url}/_fake/models/${encodeURIComponent('org/over-http')}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: 'scripted remotely', latencyMs: 1 }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({
      model: 'org/over-http',
      behaviour: { response: 'scripted remotely', latencyMs: 1, chunkSize: 1 },
    });
    expect(await ask('in-process')).toBe('scripted here');
    expect(await ask('org/over-http')).toBe('scripted remotely');

    const removed = await fetch(`${url}/_fake/models/${encodeURIComponent('org/over-http')}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await ask('org/over-http')).toBe('default answer');
  });

  it('refuses a malformed behaviour over HTTP', async () => {
    const put = await fetch(`${url}/_fake/models/m`, { method: 'PUT', body: JSON.stringify({ latency: 10 }) });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({ error: { message: 'unknown behaviour field(s): latency', type: 'invalid_behaviour' } });
  });

  it('lists and clears the recorded requests over HTTP', async () => {
    await ask('m1');
    await postJson(
      `${url}/v1/messages`,
      { model: 'm2', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'q' }] },
      { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    ).then((r) => r.text());
    const listed = (await (await fetch(`${url}/_fake/requests`)).json()) as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      expect.objectContaining({
        id: expect.any(String),
        protocol: 'openai',
        model: 'm1',
        stream: false,
        aborted: false,
        receivedAt: expect.any(Number),
        finishedAt: expect.any(Number),
      }),
      expect.objectContaining({
        protocol: 'anthropic',
        path: '/v1/messages',
        model: 'm2',
        stream: true,
        body: expect.objectContaining({ max_tokens: 5 }),
      }),
    ]);
    expect((await fetch(`${url}/_fake/requests`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await fetch(`${url}/_fake/requests`)).json()).toEqual([]);
  });

  it('waits for a request that has not arrived yet, and times out when none does', async () => {
    const waiting = server.waitForRequest((record) => record.model === 'later');
    await ask('later');
    await expect(waiting).resolves.toMatchObject({ model: 'later' });
    await expect(server.waitForRequest((record) => record.model === 'never', 50)).rejects.toThrow(
      'no matching fake provider request within 50 ms',
    );
  });

  it('holds the answer for latencyMs while it serves other requests', async () => {
    server.setModel('slow', { latencyMs: 60_000 });
    const controller = new AbortController();
    let answered = false;
    const slow = postJson(
      `${url}/v1/chat/completions`,
      { model: 'slow', messages: [{ role: 'user', content: 'q' }] },
      {},
      controller.signal,
    ).then(
      () => (answered = true),
      (error: unknown) => error,
    );
    await server.waitForRequest((record) => record.model === 'slow');
    // Received first, answered not at all: a request that came after it is served meanwhile.
    expect(await ask('quick')).toBe('default answer');
    expect(answered).toBe(false);
    expect(server.requests.find((record) => record.model === 'slow')?.finishedAt).toBeUndefined();
    controller.abort();
    await expect(slow).resolves.toMatchObject({ name: 'AbortError' });
  });

  it('sends the first fragment before the answer is finished when tokens are delayed', async () => {
    // A minute between fragments: the answer cannot finish while the test looks at it.
    server.setModel('dripping', { response: 'a b c d e', tokenDelayMs: 60_000 });
    const response = await postJson(`${url}/v1/chat/completions`, {
      model: 'dripping',
      stream: true,
      messages: [{ role: 'user', content: 'q' }],
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('"content":"a "')) received += decoder.decode((await reader.read()).value, { stream: true });
    expect(server.requests[0].finishedAt).toBeUndefined();
    await reader.cancel();
  });

  it('records a streaming request the client aborts', async () => {
    // 20 s of fragments: only the abort can end it early, and a finished stream is not marked aborted.
    server.setModel('long', { response: 'word '.repeat(1_000), tokenDelayMs: 20 });
    const controller = new AbortController();
    const provider = createOpenAICompatible({ name: 'fake', baseURL: `${url}/v1`, apiKey: 'k', includeUsage: true });
    const result = streamText({
      model: provider.chatModel('long'),
      prompt: 'q',
      abortSignal: controller.signal,
      maxRetries: 0,
      onError: () => undefined,
    });
    let fragments = 0;
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta' && ++fragments === 3) controller.abort();
    }
    const record = await server.waitForRequest((candidate) => candidate.aborted, 10_000);
    expect(record).toMatchObject({ model: 'long', stream: true, aborted: true, abortedAt: expect.any(Number) });
    expect(record.finishedAt).toBeUndefined();
  });

  it('records a non-streaming request the client aborts while the fake is still waiting', async () => {
    server.setModel('stuck', { latencyMs: 60_000 });
    const controller = new AbortController();
    const pending = postJson(
      `${url}/v1/chat/completions`,
      { model: 'stuck', messages: [{ role: 'user', content: 'q' }] },
      {},
      controller.signal,
    ).catch((error: unknown) => error);
    await server.waitForRequest((record) => record.model === 'stuck');
    controller.abort();
    await expect(pending).resolves.toMatchObject({ name: 'AbortError' });
    await expect(server.waitForRequest((record) => record.aborted, 10_000)).resolves.toMatchObject({ model: 'stuck', stream: false });
  });

  it('keeps only the newest records when capped', async () => {
    const capped = new FakeProviderServer({}, { maxRecords: 2 });
    const cappedUrl = await capped.start();
    for (const model of ['a', 'b', 'c']) {
      await (await postJson(`${cappedUrl}/v1/chat/completions`, { model, messages: [{ role: 'user', content: 'q' }] })).json();
    }
    expect(capped.requests.map((record) => record.model)).toEqual(['b', 'c']);
    await capped.stop();
  });

  it('does not mark a completed request as aborted', async () => {
    // The fake closes the connection after answering; once the client sees it closed, the
    // fake's own close handling (where an abort would be recorded) has already run.
    const answered = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${url}/v1/chat/completions`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } },
        (response) => {
          response.resume();
          response.socket.once('close', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ model: 'done', messages: [{ role: 'user', content: 'q' }] }));
    });
    expect(answered).toBe(200);
    expect(server.requests[0]).toMatchObject({ model: 'done', aborted: false, status: 200, finishedAt: expect.any(Number) });
  });
});
