import express from 'express';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Subject } from 'rxjs';
import { chatChunks } from '../openai/chat-completions';
import { relayAsSse, SSE_KEEPALIVE_MS, type SseEncoding } from './sse-relay';

const REQUEST_ID = 'req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6';

/**
 * The relay over a real loopback connection, with the clock in the test's hands: an idle stream
 * gets a comment line every SSE_KEEPALIVE_MS, whatever its encoding, and the client reads it.
 */
describe('relayAsSse keep-alive', () => {
  let server: Server;
  let events: Subject<unknown>;
  let encodingOf: (request: express.Request) => SseEncoding | undefined;
  /** Resolved once the server relays the stream (it subscribes at once), so no event is sent before anyone listens. */
  let relaying: () => void;

  beforeAll(async () => {
    const app = express();
    app.get('/stream', (request, response) => {
      void relayAsSse(request, response, REQUEST_ID, events, undefined, encodingOf(request));
      relaying();
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  beforeEach(() => {
    events = new Subject<unknown>();
  });

  afterEach(() => jest.useRealTimers());

  /** Everything the client has read so far, and a way to wait until it holds a text. */
  async function open(): Promise<{ read: () => string; until: (text: string) => Promise<void> }> {
    const relayed = new Promise<void>((resolve) => (relaying = resolve));
    const client = httpRequest({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/stream' });
    client.end();
    await relayed;
    // The relay sends its headers with the first event.
    events.next({ type: 'response', response: 'Hi' });
    const [response] = (await once(client, 'response')) as [IncomingMessage];
    let received = '';
    const waiters: Array<() => void> = [];
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      received += chunk;
      waiters.splice(0).forEach((wake) => wake());
    });
    const until = async (text: string) => {
      while (!received.includes(text)) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    return { read: () => received, until };
  }

  it.each([
    ['native events', () => undefined],
    ['OpenAI chat chunks', (request: express.Request) => chatChunks(request, REQUEST_ID, 'prompt/a/b', false)],
  ])('%s: a comment line every SSE_KEEPALIVE_MS of an idle stream, then the end as the encoding has it', async (_, encoding) => {
    encodingOf = encoding;
    // Before the relay starts, so its keep-alive interval runs on the test's clock (sockets do not).
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const stream = await open();
    await stream.until('Hi');
    jest.advanceTimersByTime(SSE_KEEPALIVE_MS - 1);
    expect(stream.read()).not.toContain(': ping');
    jest.advanceTimersByTime(1);
    await stream.until(': ping\n\n');
    jest.advanceTimersByTime(SSE_KEEPALIVE_MS);
    await stream.until(': ping\n\n: ping\n\n');
    events.complete();
    await stream.until('data: [DONE]\n\n');
  });
});
