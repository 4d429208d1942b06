import { apiErrorOf } from './api-error';

/**
 * GETs one of Waggle's own routes (the gateway that served the console, same origin) with the
 * workspace key as a Bearer token, and answers the parsed JSON or throws an ApiError. The key
 * goes in the Authorization header only, never in the URL.
 */
export async function apiGet<T>(key: string, path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' }, signal });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw apiErrorOf(response.status, body, response.headers);
  return body as T;
}
