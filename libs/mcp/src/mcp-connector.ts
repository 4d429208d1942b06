import * as dns from 'node:dns';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import type { NestedMessage } from '@waggle/errors';
import { checkResolvedAddresses, CallbackUrlPolicy, createGuardedDispatcher } from '@waggle/webhooks';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { connectionErrorOf, McpConnectionError } from './connection-error';
import { toolResultOf, type McpToolResult } from './tool-result';
import { MAX_MCP_TOOLS_PER_SERVER, toolSnapshotOf, type McpToolSnapshot } from './tool-snapshot';

/** What it takes to reach one MCP server: its URL, the headers configured for it (opened), and a call's time-out. */
export interface McpServerConnection {
  id: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** A call's total cap, whatever progress says (the spec's decisions, MCP). */
export const MAX_MCP_CALL_MS = 600_000;
/** A connection test's budget, every stage together (the spec's decisions, MCP). */
export const MCP_TEST_TIMEOUT_MS = 10_000;

export interface McpConnectorOptions {
  /**
   * Hosts, IP addresses and CIDR ranges that may be reached although they are not public, and
   * over http (MCP_URL_ALLOWLIST, in CALLBACK_URL_ALLOWLIST's format).
   */
  allowlist: string;
  /** The setting the allowlist comes from, named when an entry is invalid (default MCP_URL_ALLOWLIST). */
  allowlistSetting?: string;
  /**
   * Extra trust anchors (PEM) besides the public ones: for tests with their own certificate
   * authority. Verification itself stays on.
   */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** The connection test's budget (default MCP_TEST_TIMEOUT_MS): tests give a small one. */
  testTimeoutMs?: number;
}

/** Who Waggle says it is in the MCP handshake (clientInfo; no header carries it). */
const CLIENT_INFO = { name: 'waggle', version: '1.0.0' };
/** Pages of a tool list walked at most: a hundred tools fit in far fewer. */
const MAX_LIST_PAGES = 20;
/** How long closing waits for a cancellation notification still being sent. */
const CANCEL_DRAIN_MS = 2_000;

/** `https://host:port` of the URL: how errors name a server (its path and query may carry tokens). */
function originOf(url: string): string {
  try {
    return `the MCP server at ${new URL(url).origin}`;
  } catch {
    return 'the MCP server';
  }
}

/** One open client, and what closing it takes. */
interface Session {
  client: Client;
  /** Cancellation notifications still on their way (2025 servers learn of a cancel only from them). */
  draining: Set<Promise<unknown>>;
}

/**
 * Reaches workspace MCP servers over Streamable HTTP with the official SDK client, which speaks
 * the 2026-07-28 revision to a server that offers it and falls back to the 2025 handshake. Every
 * connection goes through the SSRF guard the callbacks use (undici with the guarded dispatcher:
 * the address actually dialled is checked, DNS rebinding included), over https unless the host is
 * allowlisted, without following redirects; only the server's configured headers are sent (no
 * OAuth flow is ever started). One connection per operation, closed when it ends. Failures are
 * McpConnectionError with the stage that failed.
 */
export class McpConnector {
  private readonly policy: CallbackUrlPolicy;
  private readonly dispatcher: Dispatcher;
  private readonly testTimeoutMs: number;

  constructor(options: McpConnectorOptions) {
    this.policy = new CallbackUrlPolicy(options.allowlist, {
      url: 'url_word_plain',
      host: 'host_word_plain',
      setting: options.allowlistSetting ?? 'MCP_URL_ALLOWLIST',
    });
    this.testTimeoutMs = options.testTimeoutMs ?? MCP_TEST_TIMEOUT_MS;
    const extraCa = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];
    this.dispatcher = createGuardedDispatcher(this.policy, {
      connectTimeoutMs: Math.min(MCP_TEST_TIMEOUT_MS, this.testTimeoutMs),
      // An explicit `ca` replaces Node's default trust store, so the public roots go along.
      ...(extraCa.length === 0 ? {} : { tls: { ca: [...rootCertificates, ...extraCa.map((pem) => pem.toString())].join('\n') } }),
    });
  }

  /**
   * The URL policy's verdict without DNS: null when acceptable, else the failure (`url_invalid`,
   * or `address_refused` for a literal non-public address).
   */
  checkUrl(url: string): McpConnectionError | null {
    const refusal = this.policy.refusal(url);
    if (refusal === null) return null;
    const reason = this.policy.check(url) ?? 'the url is not acceptable';
    return new McpConnectionError(refusal.detail === 'url_non_public' ? 'address_refused' : 'url_invalid', reason);
  }

  /** The URL policy's reason (a message id, for callers that answer in the reader's language) for refusing `url` without DNS, or null. */
  urlRefusal(url: string): NestedMessage | null {
    return this.policy.refusal(url);
  }

  /**
   * Staged diagnosis, MCP_TEST_TIMEOUT_MS in all: URL policy -> DNS -> connect (TLS) ->
   * handshake/discovery -> tools/list. Throws McpConnectionError.
   */
  async test(server: McpServerConnection, signal?: AbortSignal): Promise<{ tools: McpToolSnapshot[]; protocolVersion: string }> {
    return this.withBudget(server, this.testTimeoutMs, signal, async (budget, session) => {
      await this.resolveHost(server.url, budget);
      const client = await this.connect(server, session, budget, this.testTimeoutMs);
      const tools = await this.listAll(client, server, budget, this.testTimeoutMs);
      return { tools, protocolVersion: client.getNegotiatedProtocolVersion() ?? 'unknown' };
    });
  }

  /** The server's tools, all pages; more than 100: McpConnectionError stage `protocol`. */
  async listTools(server: McpServerConnection, signal?: AbortSignal): Promise<McpToolSnapshot[]> {
    return this.withBudget(server, server.timeoutMs, signal, async (budget, session) => {
      const client = await this.connect(server, session, budget, server.timeoutMs);
      return this.listAll(client, server, budget, server.timeoutMs);
    });
  }

  /**
   * Times out at server.timeoutMs, the timer reset by each progress notification, MAX_MCP_CALL_MS
   * in all; an abort of `signal` cancels the call (notifications/cancelled to a 2025 server, the
   * request's stream closed on 2026-07-28) and rejects with the signal's reason. A tool-level
   * error is a result with isError; transport/protocol failures throw McpConnectionError.
   */
  async callTool(
    server: McpServerConnection,
    tool: string,
    args: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
    } = {},
  ): Promise<McpToolResult> {
    return this.withBudget(server, MAX_MCP_CALL_MS, options.signal, async (budget, session) => {
      const started = Date.now();
      const client = await this.connect(server, session, budget, server.timeoutMs);
      const onProgress = options.onProgress;
      const result = await client.callTool(
        { name: tool, arguments: args },
        {
          signal: budget,
          timeout: server.timeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: Math.max(1, MAX_MCP_CALL_MS - (Date.now() - started)),
          ...(onProgress
            ? {
                onprogress: (update: { progress: number; total?: number; message?: string }) =>
                  onProgress({
                    progress: update.progress,
                    ...(update.total === undefined ? {} : { total: update.total }),
                    ...(update.message === undefined ? {} : { message: update.message }),
                  }),
              }
            : {}),
        },
      );
      return toolResultOf(result);
    });
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    await this.dispatcher.destroy();
  }

  /**
   * Runs `work` with a signal that aborts when `budgetMs` passes or the caller aborts, then closes
   * what it opened. Failures become McpConnectionError; a caller's abort rejects with its reason.
   */
  private async withBudget<T>(
    server: McpServerConnection,
    budgetMs: number,
    callerSignal: AbortSignal | undefined,
    work: (budget: AbortSignal, session: { current?: Session }) => Promise<T>,
  ): Promise<T> {
    const where = originOf(server.url);
    const urlFailure = this.checkUrl(server.url);
    if (urlFailure) throw urlFailure;
    if (callerSignal?.aborted) throw callerSignal.reason;

    const controller = new AbortController();
    const timeoutError = new McpConnectionError('timeout', `${where}: no answer within ${budgetMs} ms`);
    const timer = setTimeout(() => controller.abort(timeoutError), budgetMs);
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const stopped = new Promise<never>((_resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    stopped.catch(() => undefined);

    const session: { current?: Session } = {};
    try {
      return await Promise.race([work(controller.signal, session), stopped]);
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (controller.signal.reason === timeoutError) throw timeoutError;
      throw connectionErrorOf(error, where, Object.values(server.headers));
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      if (session.current) await this.closeSession(session.current);
    }
  }

  /** The DNS stage of a test: the host resolves, and to addresses the policy accepts (the connection checks again). */
  private async resolveHost(url: string, signal: AbortSignal): Promise<void> {
    const hostname = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(hostname) !== 0 || this.policy.isAllowlistedHost(hostname)) return;
    const where = originOf(url);
    let addresses: string[];
    try {
      const lookup = dns.promises.lookup(hostname, { all: true });
      const aborted = new Promise<never>((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      aborted.catch(() => undefined);
      addresses = (await Promise.race([lookup, aborted])).map((entry) => entry.address);
    } catch (error) {
      if (signal.aborted) throw error;
      throw connectionErrorOf(error, where, []);
    }
    const refusal = checkResolvedAddresses(hostname, addresses, this.policy);
    if (refusal) throw connectionErrorOf(refusal, where, []);
  }

  /** A connected client (2026-07-28 when the server offers it, else the 2025 handshake). */
  private async connect(
    server: McpServerConnection,
    holder: { current?: Session },
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      fetch: this.guardedFetch(),
      // Only the configured headers; 'manual' so no redirect is followed, not even within the origin.
      requestInit: { headers: { ...server.headers }, redirect: 'manual' },
      reconnectionOptions: { maxReconnectionDelay: 1_000, initialReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
    });
    const draining = new Set<Promise<unknown>>();
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const sent = send(message, options);
      if ('method' in message && message.method === 'notifications/cancelled') {
        const settled = sent.catch(() => undefined);
        draining.add(settled);
        void settled.finally(() => draining.delete(settled));
      }
      return sent;
    };
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: 'auto' }, listMaxPages: MAX_LIST_PAGES });
    // Errors also reach the awaited call; the default handler would only log them.
    client.onerror = () => undefined;
    holder.current = { client, draining };
    await client.connect(transport, { signal, timeout: timeoutMs });
    return client;
  }

  private async listAll(client: Client, server: McpServerConnection, signal: AbortSignal, timeoutMs: number): Promise<McpToolSnapshot[]> {
    const { tools } = await client.listTools(undefined, { signal, timeout: timeoutMs, cacheMode: 'bypass' });
    if (tools.length > MAX_MCP_TOOLS_PER_SERVER) {
      throw new McpConnectionError(
        'protocol',
        `${originOf(server.url)}: the server lists ${tools.length} tools, more than the ${MAX_MCP_TOOLS_PER_SERVER} allowed`,
      );
    }
    return tools.map((tool) => toolSnapshotOf(tool));
  }

  private async closeSession(session: Session): Promise<void> {
    if (session.draining.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CANCEL_DRAIN_MS);
        timer.unref();
      });
      await Promise.race([Promise.all([...session.draining]), cap]);
      clearTimeout(timer);
    }
    await session.client.close().catch(() => undefined);
  }

  /** fetch through undici with the guarded dispatcher, never following a redirect. */
  private guardedFetch(): FetchLike {
    const dispatcher = this.dispatcher;
    return (url, init) =>
      undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher, redirect: 'manual' }) as unknown as Promise<Response>;
  }
}
