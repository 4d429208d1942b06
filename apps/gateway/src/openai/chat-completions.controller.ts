import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { RunStartingApiRoute } from '../auth/authenticated.decorator';
import { registerRouteEncoding } from '../streaming/sse-relay';
import { chatAsk, chatChunks, chatCompletionOf, checkChatCompletionBody, type ChatCompletionBody } from './chat-completions';
import { OpenAiRuns, THREAD_HEADER } from './openai-runs';

const ROUTE = 'openai/v1/chat/completions';

/** An idempotent repeat of a streamed request replays the run's events as chunks again (its body is the first one's). */
registerRouteEncoding(`/${ROUTE}`, (request, requestId) => {
  const body = request.body as ChatCompletionBody;
  return chatChunks(request, requestId, body.model, body.stream_options?.include_usage === true);
});

/**
 * `POST /openai/v1/chat/completions` (the spec's decisions, OpenAI-compatible API):
 * a prompt deployment's variant or an agent, answered whole or streamed as chunks. A run-starting
 * route like the native invokes: API key, Idempotency-Key, the daily meter. Documented in the
 * OpenAPI document by its JSON Schema (openai-schemas.ts), hence excluded from Swagger's scan.
 */
@ApiExcludeController()
@Controller()
@RunStartingApiRoute()
export class ChatCompletionsController {
  constructor(private readonly runs: OpenAiRuns) {}

  @Post(ROUTE)
  @HttpCode(200)
  async create(@Body() raw: unknown, @Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    const body = checkChatCompletionBody(raw);
    const ask = chatAsk(body);
    if (body.stream) {
      const encoding = chatChunks(request, this.runs.requestId(), body.model, body.stream_options?.include_usage === true);
      await this.runs.stream(ask, request, response, encoding);
      return;
    }
    const created = Math.floor(Date.now() / 1000);
    const answer = await this.runs.answer(ask, request);
    if (answer.threadId !== undefined) response.setHeader(THREAD_HEADER, answer.threadId);
    response.status(200).json(chatCompletionOf(answer, body.model, created));
  }
}
