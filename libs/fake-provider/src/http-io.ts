import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** A request body over the fake's cap (the provider fake answers 413 for it). */
export class BodyTooLargeError extends Error {}

/** The whole request body as UTF-8, refused past `maxBytes` (the connection is dropped). */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new BodyTooLargeError('request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/**
 * Starts `server` on `host:port` (0 = any free port) and answers the `host:port` a client
 * dials: a wildcard host is reached on 127.0.0.1, an IPv6 one in brackets.
 */
export async function listen(server: Server, port: number, host: string, name: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error(`${name} has no TCP address`);
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `${shownHost}:${address.port}`;
}
