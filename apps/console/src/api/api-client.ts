import { apiErrorOf } from './api-error';

/** A body the console sends: JSON (serialized here) or a multipart form (an upload). */
export type RequestBody = FormData | object;

/**
 * Calls one of Waggle's own routes (the gateway that served the console, same origin) with the
 * workspace key as a Bearer token, and answers the parsed JSON (null for an empty answer) or throws
 * an ApiError. The key goes in the Authorization header only, never in the URL.
 */
export async function apiRequest<T>(key: string, method: string, path: string, body?: RequestBody, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'application/json' };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload, signal });
  const text = await response.text().catch(() => '');
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!response.ok) throw apiErrorOf(response.status, parsed, response.headers);
  return parsed as T;
}

export function apiGet<T>(key: string, path: string, signal?: AbortSignal): Promise<T> {
  return apiRequest<T>(key, 'GET', path, undefined, signal);
}

/**
 * A streamed answer (`text/event-stream`: a streamed prompt or agent invoke, a run's events
 * replayed): each event's name and parsed data in order, until the stream ends. An error answer
 * before the stream starts throws an ApiError like apiRequest. A GET has no body.
 */
export async function* apiStream(
  key: string,
  method: 'GET' | 'POST',
  path: string,
  body?: object,
  signal?: AbortSignal,
): AsyncGenerator<{ event: string; data: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  if (!response.ok || response.body === null) {
    const parsed: unknown = await response.json().catch(() => null);
    throw apiErrorOf(response.status, parsed, response.headers);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const event = parseEventBlock(block);
      if (event) yield event;
    }
  }
  const last = parseEventBlock(buffer);
  if (last) yield last;
}

/** One server-sent event block (`event:` and `data:` lines) as name and parsed data; null for a comment or an empty block. */
export function parseEventBlock(block: string): { event: string; data: unknown } | null {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return null;
  const text = data.join('\n');
  try {
    return { event, data: JSON.parse(text) as unknown };
  } catch {
    return { event, data: text };
  }
}
