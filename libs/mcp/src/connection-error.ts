import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { MCP_MASKED_HEADER_VALUE, type McpFailureStage } from '@waggle/contracts';
import { refusalOf } from '@waggle/webhooks';

// The stages are the wire contract's (details.stage of mcp_connection_failed).
export { MCP_FAILURE_STAGES, type McpFailureStage } from '@waggle/contracts';

/**
 * An MCP server could not be reached or did not speak MCP. `message` is safe to show to the
 * caller and the model: it is written here, never copied from a response body or an SDK message
 * (which may quote one), and names no header value. `protocolError` is the server's own JSON-RPC
 * error message, with any configured header value masked.
 */
export class McpConnectionError extends Error {
  readonly stage: McpFailureStage;
  readonly status?: number;
  readonly protocolError?: string;

  constructor(stage: McpFailureStage, message: string, details: { status?: number; protocolError?: string } = {}) {
    super(message);
    this.name = 'McpConnectionError';
    this.stage = stage;
    if (details.status !== undefined) this.status = details.status;
    if (details.protocolError !== undefined) this.protocolError = details.protocolError;
  }
}

/** An answer of the server past the byte cap: the connector stops reading it. */
export class McpResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
    this.name = 'McpResponseTooLargeError';
  }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EHOSTDOWN']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function isTlsCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code.includes('CERT') ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    code === 'UNABLE_TO_GET_ISSUER_CERT' ||
    code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' ||
    code === 'EPROTO'
  );
}

/** Every error in `error`'s cause chain (AggregateError members included), outermost first. */
function causeChain(error: unknown): unknown[] {
  const seen = new Set<unknown>();
  const chain: unknown[] = [];
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.shift();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    chain.push(current);
    if (current instanceof AggregateError) pending.push(...current.errors);
    if ('cause' in current) pending.push((current as { cause?: unknown }).cause);
  }
  return chain;
}

/** The byte cap's refusal behind `error`, if that is what it was. */
export function responseTooLargeIn(error: unknown): McpResponseTooLargeError | undefined {
  return causeChain(error).find((entry): entry is McpResponseTooLargeError => entry instanceof McpResponseTooLargeError);
}

/** The system or undici error codes in the chain (SDK codes left out). */
function networkCodes(chain: unknown[]): string[] {
  return chain.flatMap((error) => {
    if (error instanceof SdkError) return [];
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? [code] : [];
  });
}

/**
 * Masks every one of `secrets` (a server's configured header values) at least `minLength` long
 * in a text, longest first, so no part of one survives beside a shorter one: the one way the
 * connector's errors and the agent's tool results hide what a server echoes of its headers.
 */
export function secretMasker(secrets: readonly string[], minLength: number): (text: string) => string {
  const masked = [...new Set(secrets)].filter((secret) => secret.length >= minLength).sort((a, b) => b.length - a.length);
  return (text) => masked.reduce((shown, secret) => shown.split(secret).join(MCP_MASKED_HEADER_VALUE), text);
}

/** `text` with every configured header value masked, cut to a readable length. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const masked = secretMasker(secrets, 4)(text);
  return masked.length > 500 ? `${masked.slice(0, 500)}…` : masked;
}

/** What the server at `where` answered, as a stage; `secrets` (header values) are masked from protocol messages. */
export function connectionErrorOf(error: unknown, where: string, secrets: readonly string[]): McpConnectionError {
  if (error instanceof McpConnectionError) return error;
  const chain = causeChain(error);

  const refusal = refusalOf(error);
  if (refusal) {
    return refusal.refusal.detail === 'host_unresolved'
      ? new McpConnectionError('dns', `${where}: the host name did not resolve to any address`)
      : new McpConnectionError('address_refused', `${where}: ${refusal.reason}`);
  }

  const tooLarge = responseTooLargeIn(error);
  if (tooLarge)
    return new McpConnectionError('protocol', `${where}: the server's answer is larger than ${tooLarge.maxBytes / (1024 * 1024)} MiB`);

  const codes = networkCodes(chain);
  if (codes.some((code) => DNS_CODES.has(code))) return new McpConnectionError('dns', `${where}: the host name could not be resolved`);
  if (codes.some((code) => REFUSED_CODES.has(code))) {
    return new McpConnectionError(
      'address_refused',
      `${where}: nothing accepted the connection (${codes.find((code) => REFUSED_CODES.has(code))})`,
    );
  }
  const tls = codes.find(isTlsCode);
  if (tls) return new McpConnectionError('tls', `${where}: the TLS connection failed (${tls})`);
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return new McpConnectionError('timeout', `${where}: the connection timed out`);

  const http = chain.find((entry): entry is SdkHttpError => entry instanceof SdkHttpError);
  if (http && typeof http.status === 'number') {
    const status = http.status;
    if (status === 401 || status === 403) {
      return new McpConnectionError('unauthorized', `${where}: the server refused the credentials (HTTP ${status})`, { status });
    }
    if (status >= 300 && status < 400) {
      return new McpConnectionError('http_status', `${where}: the server answered a redirect (HTTP ${status}), which is not followed`, {
        status,
      });
    }
    return new McpConnectionError('http_status', `${where}: the server answered HTTP ${status}`, { status });
  }

  const protocol = chain.find((entry): entry is ProtocolError => entry instanceof ProtocolError);
  if (protocol) {
    const protocolError = maskSecrets(protocol.message, secrets);
    return new McpConnectionError('protocol', `${where}: the server answered with a protocol error (${protocol.code})`, { protocolError });
  }

  const sdk = chain.find((entry): entry is SdkError => entry instanceof SdkError);
  if (sdk?.code === SdkErrorCode.RequestTimeout) return new McpConnectionError('timeout', `${where}: the server did not answer in time`);
  if (sdk?.code === SdkErrorCode.ClientHttpUnexpectedContent) {
    return new McpConnectionError('protocol', `${where}: the server's answer is not MCP (unexpected content type)`);
  }
  if (sdk?.code === SdkErrorCode.ListPaginationExceeded) {
    return new McpConnectionError('protocol', `${where}: the server's tool list did not end`);
  }
  if (codes.some((code) => CLOSED_CODES.has(code)) || sdk?.code === SdkErrorCode.ConnectionClosed) {
    return new McpConnectionError('protocol', `${where}: the server closed the connection`);
  }
  return new McpConnectionError('protocol', `${where}: the server's answer is not MCP`);
}
