import { createParser } from 'eventsource-parser';

/** Reads a server-sent event stream as a client would, yielding each event's data. */
export async function* readSse(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  const pending: string[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event.data) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift() as string;
  }
}

/** Every event of a stream, `[DONE]` included, parsed where it is JSON. */
export async function collectSse(response: Response): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const data of readSse(response)) events.push(data === '[DONE]' ? data : JSON.parse(data));
  return events;
}
