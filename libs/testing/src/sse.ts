import { createParser } from 'eventsource-parser';

/** One server-sent event as a client sees it: its `id:` (undefined when it has none) and its data. */
export interface SseEvent {
  id: string | undefined;
  data: string;
}

/** Reads a server-sent event stream as a client would, yielding each event with its id. */
export async function* readSseEvents(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) return;
  const pending: SseEvent[] = [];
  const parser = createParser({ onEvent: (event) => pending.push({ id: event.id, data: event.data }) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift() as SseEvent;
  }
}

/** Reads a server-sent event stream as a client would, yielding each event's data. */
export async function* readSse(response: Response): AsyncGenerator<string> {
  for await (const event of readSseEvents(response)) yield event.data;
}

/** Every event of a stream, `[DONE]` included, parsed where it is JSON. */
export async function collectSse(response: Response): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const data of readSse(response)) events.push(data === '[DONE]' ? data : JSON.parse(data));
  return events;
}
