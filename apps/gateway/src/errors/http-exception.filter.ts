import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { resolveLocale, toErrorBody, WaggleException, type SupportedLocale } from '@waggle/errors';
import { newErrorId, OVERLOAD_RETRY_AFTER_SECONDS } from '@waggle/platform';
import type { Request, Response } from 'express';
import { ReplayedAnswer } from '../idempotency/idempotency.guard';
import { answeredId, isMcpRequest, toMcpError } from '../mcp/mcp-errors';
import { isOpenAiRequest, toOpenAiError } from '../openai/openai-errors';
import { toWaggleException } from './to-waggle-exception';

/** Set on the request by authentication: the workspace's account language. */
export type LocalizedRequest = Request & { locale?: SupportedLocale };

/**
 * The gateway's one exception filter: every failure leaves as the spec's JSON error
 * shape (OpenAI's error object on the OpenAI-compatible surface, a JSON-RPC error at the MCP
 * server's path), in the workspace's language. Unexpected errors are logged with an id and
 * answered as internal_server_error without internals.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(exception, http.getRequest<LocalizedRequest>(), http.getResponse<Response>(), this.logger);
  }
}

export function sendError(exception: unknown, request: LocalizedRequest, response: Response, logger: Pick<Logger, 'error'>): void {
  // An Idempotency-Key repeat: the first request's answer, not an error.
  if (exception instanceof ReplayedAnswer) {
    // A stream's replay fails before its first byte (its events are gone) as any request does.
    void exception.answer(response).catch((error: unknown) => sendError(error, request, response, logger));
    return;
  }
  let shaped = toWaggleException(exception);
  if (!shaped) {
    const errorId = newErrorId();
    logger.error({ err: exception, error_id: errorId, method: request.method, route: request.route?.path }, 'unexpected error');
    shaped = new WaggleException('internal_server_error', { details: { error_id: errorId } });
  }
  if (response.headersSent) {
    response.end();
    return;
  }
  // A 503 is always "unavailable for now" (a service shedding overload, a dependency away): say when to come back.
  if (shaped.status === 503) response.setHeader('retry-after', String(OVERLOAD_RETRY_AFTER_SECONDS));
  if (isOpenAiRequest(request)) {
    // The OpenAI-compatible surface has its own error object (decisions); the native routes never change.
    const answer = toOpenAiError(shaped, resolveLocale(request.locale), request);
    // OpenAI's clients wait as long as `retry-after` says before their retry of a 429 (the daily cap's says until midnight).
    if (answer.status === 429 && !response.hasHeader('retry-after')) response.setHeader('retry-after', '1');
    response.status(answer.status).set(answer.headers).json(answer.body);
    return;
  }
  if (isMcpRequest(request)) {
    // The MCP server answers as JSON-RPC, its clients' shape (the spec's decisions, MCP).
    const answer = toMcpError(shaped, resolveLocale(request.locale), answeredId(request.body));
    response.status(answer.status).set(answer.headers).json(answer.body);
    return;
  }
  response.status(shaped.status).json(toErrorBody(shaped, resolveLocale(request.locale)));
}
