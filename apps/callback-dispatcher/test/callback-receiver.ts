import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  rawBody: string;
  receivedAt: number;
}

/** What the receiver answers the n-th request (1-based) to a path; `hang` never answers. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';
export type Behaviour = (n: number) => Answer;

/**
 * A real HTTP receiver on loopback, standing in for a customer's callback endpoint: it
 * records every request (and every TCP connection) and answers per path as a test says.
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  connections = 0;
  private readonly behaviours = new Map<string, Behaviour>();
  private server?: Server;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    this.server.on('connection', () => (this.connections += 1));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get portNumber(): number {
    return this.port;
  }

  /** Answers requests to `path` with `behaviour` (by default: 200). */
  on(path: string, behaviour: Behaviour): string {
    this.behaviours.set(path, behaviour);
    return `${this.origin}${path}`;
  }

  to(path: string): ReceivedCallback[] {
    return this.received.filter((request) => request.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = (request.url ?? '/').split('?')[0] as string;
    this.received.push({ path, headers: request.headers, rawBody: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
    const answer: Answer = (this.behaviours.get(path) ?? (() => ({ status: 200 })))(this.to(path).length);
    if (answer === 'hang') return;
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body ?? '');
  }
}
