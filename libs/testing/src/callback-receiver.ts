import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent: what signatures are computed over. */
  body: string;
  receivedAt: number;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
}

/**
 * A loopback HTTP server that records every callback and answers from a script per path
 * (then 200), so tests can make a receiver fail, go away (410) or redirect.
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  private readonly scripts = new Map<string, ScriptedAnswer[]>();
  private server?: Server;
  private listeners: Array<(callback: ReceivedCallback) => void> = [];

  async start(port = 0): Promise<string> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const callback = { path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        this.received.push(callback);
        for (const listener of this.listeners) listener(callback);
        this.answer(response, this.scripts.get(path)?.shift() ?? { status: 200 });
      });
    });
    server.keepAliveTimeout = 30_000;
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** The next answers to requests on `path`, in order; afterwards 200. */
  script(path: string, answers: ScriptedAnswer[]): void {
    this.scripts.set(path, [...answers]);
  }

  on(path: string): ReceivedCallback[] {
    return this.received.filter((callback) => callback.path === path);
  }

  /** Called for every callback as it arrives. */
  onCallback(listener: (callback: ReceivedCallback) => void): void {
    this.listeners.push(listener);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(response: ServerResponse, answer: ScriptedAnswer): void {
    const send = () => {
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify({ ok: answer.status < 300 }));
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  }
}
