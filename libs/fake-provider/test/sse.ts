/** One Server-Sent Event as a test reads it. */
export interface SseEvent {
  event?: string;
  data: string;
}

export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const event: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event.event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) event.data += line.slice('data: '.length);
      }
      return event;
    });
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
}
