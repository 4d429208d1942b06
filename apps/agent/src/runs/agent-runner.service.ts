import { Inject, Injectable } from '@nestjs/common';
import type { AgentInvokeResponse, AgentRunRequest, AgentStreamEvent, AgentTriggerJob, RunStatus } from '@waggle/contracts';
import { streamErrorEvent, type WaggleException } from '@waggle/errors';
import { APP_ENV } from '@waggle/platform';
import { RunCancellation, runCancelledError, type TrackedRun } from '@waggle/runs';
import { failSpan, startSpan } from '@waggle/telemetry';
import type { Span } from '@opentelemetry/api';
import { Observable } from 'rxjs';
import type { AgentEnv } from '../config/agent.env';
import { turnEvents, usageEvent } from './agent-stream-events';
import { RunAgentTurn, type AgentTurnInput, type AgentTurnOutcome } from './usecases/run-agent-turn/run-agent-turn';
import { toolCallView } from './usecases/run-agent-turn/tool-loop';

/**
 * A run's span (GenAI `invoke_agent`), started before the agent is read so a refusal is on it
 * too: named after the agent once it is known (agentNamed).
 */
function startRunSpan(request: Pick<AgentTurnInput, 'agent' | 'request_id'>): ReturnType<typeof startSpan> {
  return startSpan('invoke_agent', {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.id': request.agent,
    'waggle.agent.run.id': request.request_id,
  });
}

/** The run's span gets the agent's name (and the thread, for a threaded run) once the run is prepared. */
function agentNamed(span: Span, outcome: AgentTurnOutcome): void {
  span.updateName(`invoke_agent ${outcome.agentName}`);
  span.setAttribute('gen_ai.agent.name', outcome.agentName);
  if (outcome.threadId) span.setAttribute('gen_ai.conversation.id', outcome.threadId);
}

/** A webhook trigger's (or background invoke's) job as the turn it runs. */
function turnOfTrigger(job: AgentTriggerJob): AgentTurnInput {
  return {
    workspace_id: job.workspace_id,
    request_id: job.request_id,
    agent: job.agent_id,
    message: job.message,
    ...(job.thread_id !== null && { thread_id: job.thread_id }),
    metadata: job.metadata,
    ...(job.user !== null && { user: job.user }),
    ...(job.messages !== undefined && { messages: job.messages }),
    ...(job.attachments !== undefined && { attachments: job.attachments }),
    ...(job.image_urls !== undefined && { image_urls: job.image_urls }),
  };
}

/**
 * Agent runs as callers see them: a whole answer, a stream of events, or a trigger's run. Each
 * is one agent turn (RunAgentTurn) with its cancellation tracked (RunCancellation) and its
 * span; this class only gives the turn's outcome its caller's shape.
 */
@Injectable()
export class AgentRunner {
  constructor(
    private readonly turns: RunAgentTurn,
    private readonly cancellation: RunCancellation,
    @Inject(APP_ENV) private readonly env: AgentEnv,
  ) {}

  /** A whole run (sync, a trigger's, a workflow step's); a cancel stops it (409 run_cancelled) between model turns and tool calls. */
  async invoke(request: AgentTurnInput, deadline?: AbortSignal): Promise<AgentInvokeResponse> {
    return this.cancellation.tracking(request.request_id, (tracked) => {
      const { span, run } = startRunSpan(request);
      return run(() => this.invokeTracked(request, tracked, span, deadline)).then(
        (answer) => {
          span.setAttribute('waggle.agent.run.status', 'completed');
          span.end();
          return answer;
        },
        (error: unknown) => {
          // A cancel is the caller's choice, not a failure of the run.
          span.setAttribute('waggle.agent.run.status', tracked.cancelled ? 'cancelled' : 'failed');
          if (tracked.cancelled) span.end();
          else failSpan(span, error);
          throw error;
        },
      );
    });
  }

  private async invokeTracked(
    request: AgentTurnInput,
    tracked: TrackedRun,
    span: Span,
    deadline?: AbortSignal,
  ): Promise<AgentInvokeResponse> {
    const outcome = await this.turns.run(request, { tracked, ...(deadline && { deadline }) });
    agentNamed(span, outcome);
    if (outcome.status === 'failed') throw outcome.failure;
    // Not streamed, an invoke is never `disconnected`: only a cancel stops it short of an answer.
    if (outcome.status !== 'completed') throw runCancelledError(request.request_id);
    const { result } = outcome;
    return {
      request_id: request.request_id,
      response: result.response,
      ...(typeof request.thread_id === 'string' && { thread_id: request.thread_id }),
      model: outcome.model,
      usage: result.usage,
      tool_calls: result.toolCalls.map(toolCallView),
    };
  }

  /**
   * The run as events. Refusals end the observable with the error before any event (the
   * gateway answers them as JSON); a provider failure afterwards is one `error` event. When
   * the client leaves, the run is cancelled silently: no event, no failed run, no usage,
   * unless the answer was already complete and recorded. The run's span ends when the run
   * settles, whether the stream ended, failed or was left (the client's leaving aborts the run).
   */
  stream(request: AgentRunRequest): Observable<AgentStreamEvent> {
    return new Observable<AgentStreamEvent>((subscriber) => {
      const requestId = request.request_id;
      const tracked = this.cancellation.track(requestId);
      const { span, run: inRunSpan } = startRunSpan(request);
      let status: RunStatus = 'failed';
      /** The failure the stream ended with (an error event), for the span. */
      let failure: WaggleException | undefined;
      const emit = (event: AgentStreamEvent) => {
        if (!tracked.signal.aborted) subscriber.next(event);
      };
      const execute = async () => {
        const outcome = await this.turns.run(request, { tracked, stream: turnEvents(requestId, emit) });
        agentNamed(span, outcome);
        switch (outcome.status) {
          case 'cancelled':
            // A cancel: the caller hears it, then the stream ends.
            status = 'cancelled';
            subscriber.next(streamErrorEvent(requestId, runCancelledError(requestId)));
            return;
          case 'disconnected':
            status = 'cancelled';
            return;
          case 'failed':
            failure = outcome.failure;
            emit(streamErrorEvent(requestId, failure, failure.code === 'provider_error' ? outcome.provider : undefined));
            return;
          case 'completed':
            status = 'completed';
            emit(usageEvent(requestId, outcome.result, outcome.startedAt));
        }
      };
      inRunSpan(execute)
        .finally(() => tracked.done(status))
        .then(
          () => {
            span.setAttribute('waggle.agent.run.status', status);
            if (failure) failSpan(span, failure);
            else span.end();
            subscriber.complete();
          },
          (error: unknown) => {
            failSpan(span, error);
            subscriber.error(error);
          },
        );
      return () => tracked.done();
    });
  }

  /** A webhook trigger's (or background invoke's) run: no client waits, so it has a time limit of its own. */
  async invokeTriggered(job: AgentTriggerJob): Promise<AgentInvokeResponse> {
    return this.invoke(turnOfTrigger(job), AbortSignal.timeout(this.env.AGENT_TRIGGER_TIMEOUT_MS));
  }
}
