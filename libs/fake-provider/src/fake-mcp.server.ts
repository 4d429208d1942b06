import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  legacyStatelessFallback,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type McpServerFactory,
  type ProtocolEra,
} from '@modelcontextprotocol/server';
import { BodyTooLargeError, listen, readBody, sendJson } from './http-io';

/** A tool the fake lists and answers. Without `answer`, a call answers its arguments as JSON text. */
export interface FakeMcpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  answer?: (args: Record<string, unknown>) => CallToolResult;
}

/** Which protocol revisions the fake serves. */
export type FakeMcpEra =
  /** 2026-07-28 and, statelessly, the 2025 revisions (what `createMcpHandler` serves by default). */
  | 'both'
  /** Only the 2025 revisions: a server from before 2026-07-28 (`server/discover` is an unknown method). */
  | 'legacy';

export interface FakeMcpServerOptions {
  /** Headers every request must carry with exactly these values (names case-insensitive); otherwise 401. */
  requiredHeaders?: Record<string, string>;
  /** Serve over HTTPS with this certificate (e.g. createTestCertificates() of @waggle/testing). */
  tls?: { key: string; cert: string };
  /** Default `both`. */
  era?: FakeMcpEra;
  /** The endpoint's path (default `/mcp`). */
  path?: string;
  /** The tools listed at start (default: `echo`, `add`, `slow`, `huge`, `fail`). */
  tools?: FakeMcpTool[];
}

/** One HTTP request as the fake saw it. */
export interface FakeMcpRequestRecord {
  method: string;
  path: string;
  /** Kept whole: a test proves that a configured header arrived and that nothing else was sent. */
  headers: IncomingHttpHeaders;
  /** The JSON-RPC methods of the body (requests and notifications), e.g. `['tools/call']`. */
  rpcMethods: string[];
  /** The HTTP status the fake answered itself (401, an override), or null when the MCP handler answered. */
  refusedWith: number | null;
}

/** One `tools/call` as the fake's handler saw it. */
export interface FakeMcpCallRecord {
  tool: string;
  arguments: Record<string, unknown>;
  era: ProtocolEra;
  /** Whether the call asked for progress (carried a progress token). */
  progressToken: string | number | null;
  /** Set when the handler's signal aborted before it answered (notifications/cancelled, or the stream closed). */
  cancelled: boolean;
}

/** A held call (or listing) of one name: it answers only once released. */
export interface FakeMcpGate {
  /** Resolves with the call once one is held here (for `tools/list`, a record with tool `tools/list`). */
  reached: Promise<FakeMcpCallRecord>;
  /** Sends one progress notification to every call held here that asked for progress; resolves once sent. */
  progress(message?: string): Promise<void>;
  /** Lets every held call answer, and later ones pass. */
  release(): void;
}

/** What every request is answered with instead of MCP, for failure tests (a 500, an HTML page, a redirect). */
export interface FakeMcpOverride {
  status: number;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
}

/** The bytes of text the `huge` tool answers with (about 300 KiB, multi-byte characters included). */
export const FAKE_MCP_HUGE_BYTES = 300 * 1024;

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const LISTING = 'tools/list';

/** The default tools, as the fake lists them. */
export function defaultFakeMcpTools(): FakeMcpTool[] {
  return [
    {
      name: 'echo',
      title: 'Echo',
      description: 'Answers the text it was given.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      answer: (args) => {
        const text = typeof args.text === 'string' ? args.text : '';
        return { content: [{ type: 'text', text }], structuredContent: { text } };
      },
    },
    {
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      answer: (args) => {
        if (typeof args.a !== 'number' || typeof args.b !== 'number') {
          return { content: [{ type: 'text', text: 'a and b must be numbers' }], isError: true };
        }
        const sum = args.a + args.b;
        return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } };
      },
    },
    {
      name: 'slow',
      description: 'Reports progress and answers once the test releases it (FakeMcpServer.gate).',
      inputSchema: { type: 'object', properties: {} },
      answer: () => ({ content: [{ type: 'text', text: 'slow done' }] }),
    },
    {
      name: 'huge',
      description: `Answers about ${FAKE_MCP_HUGE_BYTES / 1024} KiB of text.`,
      inputSchema: { type: 'object', properties: {} },
      answer: () => ({ content: [{ type: 'text', text: hugeText(FAKE_MCP_HUGE_BYTES) }] }),
    },
    {
      name: 'fail',
      description: 'Always fails (a tool-level error).',
      inputSchema: { type: 'object', properties: {} },
      answer: () => ({ content: [{ type: 'text', text: 'the fake tool failed on purpose' }], isError: true }),
    },
  ];
}

/** `bytes` of UTF-8 text: numbered lines with two-byte characters in them, so a cut can fall inside a character. */
function hugeText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = 1; size < bytes; index++) {
    const line = `line ${String(index).padStart(5, '0')}: café crème, naïve façade ✓\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return Buffer.from(lines.join('')).subarray(0, bytes).toString('utf8');
}

interface PendingGate {
  reached: Promise<FakeMcpCallRecord>;
  reach(record: FakeMcpCallRecord): void;
  released: Promise<void>;
  release(): void;
  held: Set<HeldCall>;
}

interface HeldCall {
  record: FakeMcpCallRecord;
  progressToken: string | number | null;
  progressSent: number;
  notify: (params: { progressToken: string | number; progress: number; message?: string }) => Promise<void>;
}

/**
 * An MCP server double for tests and local runs, built on the official SDK (v2 `createMcpHandler`
 * with a low-level `Server`, so its tools are plain JSON Schema and can change at run time), served
 * over node:http(s) with `toNodeHandler`. Speaks 2026-07-28 and the 2025 revisions (or only the
 * 2025 ones, `era: 'legacy'`). It records every request's headers and every tool call; a gate
 * holds a tool's calls (or the listing) until the test releases it, and `slow` is always held.
 * `override` makes it answer every request with a fixed non-MCP answer (a 500, an HTML page).
 */
export class FakeMcpServer {
  private readonly records: FakeMcpRequestRecord[] = [];
  private readonly callRecords: FakeMcpCallRecord[] = [];
  private readonly tools = new Map<string, FakeMcpTool>();
  private readonly gates = new Map<string, PendingGate>();
  private readonly watchers = new Set<() => void>();
  private readonly path: string;
  private answerOverride: FakeMcpOverride | null = null;
  private listingFailure: string | null = null;
  private server?: HttpServer;
  private baseUrl?: string;
  private readonly handler: { fetch: (request: Request) => Promise<Response>; close(): Promise<void> };

  constructor(private readonly options: FakeMcpServerOptions = {}) {
    this.path = options.path ?? '/mcp';
    this.resetTools();
    const factory: McpServerFactory = ({ era }) => this.buildServer(era);
    if (options.era === 'legacy') {
      const legacy = legacyStatelessFallback(factory);
      this.handler = { fetch: (request) => legacy(request), close: async () => undefined };
    } else {
      this.handler = createMcpHandler(factory);
    }
  }

  /** The MCP endpoint's URL, e.g. `http://127.0.0.1:40123/mcp`. */
  get url(): string {
    if (!this.baseUrl) throw new Error('FakeMcpServer is not started');
    return `${this.baseUrl}${this.path}`;
  }

  /** `host:port` the server listens on. */
  get origin(): string {
    if (!this.baseUrl) throw new Error('FakeMcpServer is not started');
    return this.baseUrl;
  }

  /** Every HTTP request so far, oldest first. */
  get requests(): readonly FakeMcpRequestRecord[] {
    return [...this.records];
  }

  /** Every tool call so far, oldest first. */
  get calls(): readonly FakeMcpCallRecord[] {
    return this.callRecords.map((record) => ({ ...record }));
  }

  clearRequests(): void {
    this.records.length = 0;
    this.callRecords.length = 0;
  }

  /** Adds a tool or replaces the one of the same name (its definition changes what a listing shows). */
  setTool(tool: FakeMcpTool): void {
    this.tools.set(tool.name, tool);
  }

  removeTool(name: string): void {
    this.tools.delete(name);
  }

  /** Back to the tools given at construction (or the defaults). */
  resetTools(): void {
    this.tools.clear();
    this.listingFailure = null;
    for (const tool of this.options.tools ?? defaultFakeMcpTools()) this.tools.set(tool.name, tool);
  }

  listedTools(): FakeMcpTool[] {
    return [...this.tools.values()];
  }

  /** Answers every request with `answer` instead of MCP (null: back to MCP). */
  override(answer: FakeMcpOverride | null): void {
    this.answerOverride = answer;
  }

  /** Makes `tools/list` answer a JSON-RPC error with this message (null: list again). */
  failListing(message: string | null): void {
    this.listingFailure = message;
  }

  /**
   * Holds the calls of tool `name` (or, with `tools/list`, the listing) until `release()`. `slow`
   * is held even without a gate: this returns the gate its calls wait at.
   */
  gate(name: string): FakeMcpGate {
    const gate = this.pendingGate(name);
    return {
      reached: gate.reached,
      progress: async (message?: string) => {
        await Promise.all(
          [...gate.held].map(async (call) => {
            if (call.progressToken === null) return;
            call.progressSent += 1;
            await call.notify({ progressToken: call.progressToken, progress: call.progressSent, ...(message ? { message } : {}) });
          }),
        );
      },
      release: () => gate.release(),
    };
  }

  /** The first call of `tool` (already made or still to come). */
  waitForCall(tool: string, timeoutMs = 5_000): Promise<FakeMcpCallRecord> {
    return this.waitFor(() => this.callRecords.find((record) => record.tool === tool), `a call of ${tool}`, timeoutMs);
  }

  /** The first call of `tool` whose handler saw its signal abort. */
  waitForCancellation(tool: string, timeoutMs = 5_000): Promise<FakeMcpCallRecord> {
    return this.waitFor(
      () => this.callRecords.find((record) => record.tool === tool && record.cancelled),
      `a cancelled call of ${tool}`,
      timeoutMs,
    );
  }

  /** The first request whose body carried JSON-RPC method `rpcMethod` (e.g. `notifications/cancelled`). */
  waitForRpc(rpcMethod: string, timeoutMs = 5_000): Promise<FakeMcpRequestRecord> {
    return this.waitFor(() => this.records.find((record) => record.rpcMethods.includes(rpcMethod)), rpcMethod, timeoutMs);
  }

  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error('FakeMcpServer is already started');
    const nodeHandler = toNodeHandler(this.handler);
    const listener = (request: IncomingMessage, response: ServerResponse) => void this.handle(request, response, nodeHandler);
    const server = this.options.tls
      ? createHttpsServer({ key: this.options.tls.key, cert: this.options.tls.cert }, listener)
      : createHttpServer(listener);
    this.server = server;
    this.baseUrl = `${this.options.tls ? 'https' : 'http'}://${await listen(server, port, host, 'fake MCP server')}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.baseUrl = undefined;
    for (const gate of this.gates.values()) gate.release();
    this.gates.clear();
    await this.handler.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse, nodeHandler: ReturnType<typeof toNodeHandler>): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://fake-mcp').pathname;
    const record: FakeMcpRequestRecord = {
      method: request.method ?? 'GET',
      path,
      headers: request.headers,
      rpcMethods: [],
      refusedWith: null,
    };
    this.records.push(record);
    try {
      let parsedBody: unknown;
      if (record.method === 'POST') {
        const text = await readBody(request, MAX_BODY_BYTES);
        try {
          parsedBody = JSON.parse(text);
        } catch {
          parsedBody = undefined;
        }
        record.rpcMethods = rpcMethodsOf(parsedBody);
        if (parsedBody === undefined) return this.refuse(record, response, 400, { error: 'the body is not JSON' });
      }
      this.notify();
      if (this.answerOverride) {
        const answer = this.answerOverride;
        record.refusedWith = answer.status;
        response.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain', ...answer.headers }).end(answer.body ?? '');
        return;
      }
      const missing = Object.entries(this.options.requiredHeaders ?? {}).some(
        ([name, value]) => request.headers[name.toLowerCase()] !== value,
      );
      if (missing) {
        return this.refuse(record, response, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer realm="fake-mcp"' });
      }
      if (path !== this.path) return this.refuse(record, response, 404, { error: 'not found' });
      await nodeHandler(request, response, parsedBody);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return;
      if (!response.headersSent) sendJson(response, 500, { error: error instanceof Error ? error.message : String(error) });
      else response.destroy();
    }
  }

  private refuse(
    record: FakeMcpRequestRecord,
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    record.refusedWith = status;
    this.notify();
    sendJson(response, status, body, headers);
  }

  private buildServer(era: ProtocolEra): Server {
    const server = new Server({ name: 'waggle-fake-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async (_request, ctx) => {
      const gate = this.gates.get(LISTING);
      if (gate) {
        const record: FakeMcpCallRecord = { tool: LISTING, arguments: {}, era, progressToken: null, cancelled: false };
        await this.hold(gate, record, ctx.mcpReq.signal, null, async () => undefined);
      }
      if (this.listingFailure !== null) throw new ProtocolError(ProtocolErrorCode.InternalError, this.listingFailure);
      return {
        tools: this.listedTools().map((tool) => ({
          name: tool.name,
          ...(tool.title === undefined ? {} : { title: tool.title }),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: tool.inputSchema as { type: 'object' },
          ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as { type: 'object' } }),
        })),
      };
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const tool = this.tools.get(request.params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const token = ctx.mcpReq._meta?.progressToken;
      const progressToken = typeof token === 'string' || typeof token === 'number' ? token : null;
      const record: FakeMcpCallRecord = { tool: tool.name, arguments: args, era, progressToken, cancelled: false };
      this.callRecords.push(record);
      this.notify();
      const gate = tool.name === 'slow' ? this.pendingGate('slow') : this.gates.get(tool.name);
      if (gate) {
        const notify = (params: { progressToken: string | number; progress: number; message?: string }) =>
          ctx.mcpReq.notify({ method: 'notifications/progress', params });
        const held = await this.hold(gate, record, ctx.mcpReq.signal, progressToken, notify);
        if (!held) return { content: [{ type: 'text', text: 'cancelled' }], isError: true };
      }
      return tool.answer ? tool.answer(args) : { content: [{ type: 'text', text: JSON.stringify(args) }] };
    });
    return server;
  }

  /** Waits at `gate` until released (true) or the request's signal aborts (false, the record marked cancelled). */
  private async hold(
    gate: PendingGate,
    record: FakeMcpCallRecord,
    signal: AbortSignal,
    progressToken: string | number | null,
    notify: HeldCall['notify'],
  ): Promise<boolean> {
    const call: HeldCall = { record, progressToken, progressSent: 0, notify };
    const aborted = new Promise<false>((resolve) => {
      const onAbort = () => {
        record.cancelled = true;
        this.notify();
        resolve(false);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    gate.held.add(call);
    if (progressToken !== null) {
      call.progressSent += 1;
      await notify({ progressToken, progress: call.progressSent, message: 'started' }).catch(() => undefined);
    }
    gate.reach(record);
    try {
      return await Promise.race([gate.released.then(() => true as const), aborted]);
    } finally {
      gate.held.delete(call);
    }
  }

  private pendingGate(name: string): PendingGate {
    const existing = this.gates.get(name);
    if (existing) return existing;
    let reach!: (record: FakeMcpCallRecord) => void;
    const reached = new Promise<FakeMcpCallRecord>((resolve) => (reach = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gate: PendingGate = {
      reached,
      reach,
      released,
      release: () => {
        if (this.gates.get(name) === gate) this.gates.delete(name);
        release();
      },
      held: new Set(),
    };
    this.gates.set(name, gate);
    return gate;
  }

  private waitFor<T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const existing = find();
    if (existing !== undefined) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const watcher = (): void => {
        const found = find();
        if (found === undefined) return;
        this.watchers.delete(watcher);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.watchers.delete(watcher);
        reject(new Error(`the fake MCP server saw no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.watchers.add(watcher);
    });
  }

  private notify(): void {
    for (const watcher of [...this.watchers]) watcher();
  }
}

/** The `method` of each JSON-RPC message in a body (one message or a batch). */
function rpcMethodsOf(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) =>
    message !== null && typeof message === 'object' && typeof (message as { method?: unknown }).method === 'string'
      ? [(message as { method: string }).method]
      : [],
  );
}
