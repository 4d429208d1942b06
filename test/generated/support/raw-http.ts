import { connect } from 'node:net';

/**
 * HTTP/1.x spoken over a plain socket, byte for byte as the test writes it: what no
 * well-behaved client (fetch, undici) would send — malformed escapes, raw non-ASCII bytes,
 * repeated and conflicting headers, odd methods and versions, pipelined requests — and the
 * answers read back as sent.
 */

export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawExchange {
  answers: RawAnswer[];
  /** The connection was reset (ECONNRESET, EPIPE) rather than closed. */
  reset: boolean;
  /** Bytes after the last whole answer that did not make one (a cut answer). */
  leftover: number;
  /** The exchange ended on the bound, not on an answer or a close. */
  timedOut: boolean;
}

export interface RawExchangeOptions {
  /** Answers to wait for before closing: a request without `Connection: close` keeps the connection open. */
  answers: number;
  /** The bound on the whole exchange, after which the socket is closed and what came is returned. */
  boundMs: number;
  /** Written after the request, once the first bytes were sent: a client that stalls mid-body and then leaves. */
  thenDestroy?: boolean;
}

/** Splits whole answers off `buffer`; returns them and how many bytes they took. `headOnly`: answers to HEAD have no body. */
export function parseAnswers(buffer: Buffer, headOnly: boolean[]): { answers: RawAnswer[]; used: number; complete: boolean } {
  const answers: RawAnswer[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const end = buffer.indexOf('\r\n\r\n', offset);
    if (end < 0) break;
    const head = buffer.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1]);
    if (!Number.isInteger(status)) throw new Error(`not an HTTP answer: ${JSON.stringify(head[0])}`);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    let cursor = end + 4;
    // 1xx (100 Continue) carries no body and is followed by the real answer.
    if (status < 200) {
      offset = cursor;
      continue;
    }
    const noBody = headOnly[answers.length] === true || status === 204 || status === 304;
    let body: Buffer = Buffer.alloc(0);
    if (noBody) {
      // nothing
    } else if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = buffer.indexOf('\r\n', cursor);
        if (lineEnd < 0) return { answers, used: offset, complete: false };
        const size = parseInt(buffer.subarray(cursor, lineEnd).toString('latin1'), 16);
        if (!Number.isInteger(size)) throw new Error('a chunk size that is not hexadecimal');
        if (buffer.length < lineEnd + 2 + size + 2) return { answers, used: offset, complete: false };
        chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        cursor = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (buffer.length < cursor + length) return { answers, used: offset, complete: false };
      body = buffer.subarray(cursor, cursor + length);
      cursor += length;
    } else {
      // Delimited by the close: whole only once the socket has ended (the caller decides).
      body = buffer.subarray(cursor);
      cursor = buffer.length;
    }
    answers.push({ status, headers, body });
    offset = cursor;
  }
  return { answers, used: offset, complete: true };
}

/** Sends `request` to 127.0.0.1:`port` and reads what comes back, within `boundMs`. */
export function rawExchange(port: number, request: Buffer, headOnly: boolean[], options: RawExchangeOptions): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let reset = false;
    let settled = false;
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(bound);
      socket.destroy();
      const buffer = Buffer.concat(received);
      try {
        const { answers, used } = parseAnswers(buffer, headOnly);
        resolve({ answers, reset, leftover: buffer.length - used, timedOut });
      } catch {
        resolve({ answers: [], reset, leftover: buffer.length, timedOut });
      }
    };
    const bound = setTimeout(() => finish(true), options.boundMs);
    socket.on('connect', () => {
      socket.write(request, () => {
        if (options.thenDestroy) setImmediate(() => finish(false));
      });
    });
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      try {
        const parsed = parseAnswers(Buffer.concat(received), headOnly);
        const lastDelimited = parsed.answers.at(-1);
        const whole =
          lastDelimited && (lastDelimited.headers['content-length'] !== undefined || lastDelimited.headers['transfer-encoding']);
        if (parsed.answers.length >= options.answers && parsed.complete && whole) finish(false);
      } catch {
        // Not (yet) an answer this reader understands: the close or the bound ends the exchange.
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
      finish(false);
    });
    socket.on('close', () => finish(false));
  });
}
