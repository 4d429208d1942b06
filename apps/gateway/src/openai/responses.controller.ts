import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { RunStartingApiRoute } from '../auth/authenticated.decorator';
import { OpenAiRuns, THREAD_HEADER } from './openai-runs';
import { registerRouteEncoding } from '../streaming/sse-relay';
import { checkResponsesBody, responseEvents, responseOf, responsesAsk, type ResponsesBody } from './responses';

const ROUTE = 'openai/v1/responses';

/** An idempotent repeat of a streamed request replays the run's events as the Responses stream again. */
registerRouteEncoding(`/${ROUTE}`, (request, requestId) => responseEvents(request, requestId, request.body as ResponsesBody));

/**
 * `POST /openai/v1/responses` (the spec's decisions, OpenAI-compatible API › responses): the subset of OpenAI's Responses API a
 * deployment or an agent can answer, whole or as its event stream; nothing is stored.
 */
@ApiExcludeController()
@Controller()
@RunStartingApiRoute()
export class ResponsesController {
  constructor(private readonly runs: OpenAiRuns) {}

  @Post(ROUTE)
  @HttpCode(200)
  async create(@Body() raw: unknown, @Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    const body = checkResponsesBody(raw);
    const ask = responsesAsk(body);
    if (body.stream) {
      await this.runs.stream(ask, request, response, responseEvents(request, this.runs.requestId(), body));
      return;
    }
    const createdAt = Math.floor(Date.now() / 1000);
    const answer = await this.runs.answer(ask, request);
    if (answer.threadId !== undefined) response.setHeader(THREAD_HEADER, answer.threadId);
    response.status(200).json(responseOf(answer, body, createdAt));
  }
}
