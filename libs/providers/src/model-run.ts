import { WaggleException } from '@waggle/errors';
import { addCallCost, RunCost } from './cost';
import { attemptFailureOf, type AttemptFailure } from './failures';
import { complete, stream, type RouteCompletion } from './invoke';
import { firstByteWatch, type FirstByteWatcher } from './lean-fetch';
import type { CallAttempt } from './model-telemetry';
import type { ProviderRegistry } from './registry';
import { repairMessages, schemaMismatch, violationsOf } from './structured-output';
import type { CallCost, CompletionResult, ModelAttempt, ModelRoute, PromptCall, StreamPart } from './types';
import { addUsage } from './usage';
import { credentialSourceOf } from './workspace-credentials';
import type { CredentialSource } from '@waggle/contracts';

/** A call's own time-out for the provider's first byte, armed only while a fallback is left (D41). */
interface FirstByteGuard {
  signal: AbortSignal | undefined;
  watcher: FirstByteWatcher | undefined;
  timedOut(): boolean;
  dispose(): void;
}

function firstByteGuard(timeoutMs: number | undefined, callerSignal: AbortSignal | undefined): FirstByteGuard {
  if (timeoutMs === undefined) return { signal: callerSignal, watcher: undefined, timedOut: () => false, dispose: () => undefined };
  const expired = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const stop = () => clearTimeout(timer);
  return {
    signal: callerSignal ? AbortSignal.any([callerSignal, expired.signal]) : expired.signal,
    watcher: {
      // Each request the SDK sends (its own retries too) gets the whole time-out again.
      requestSent: () => {
        stop();
        timer = setTimeout(() => expired.abort(new DOMException('The provider sent no first byte in time.', 'TimeoutError')), timeoutMs);
      },
      responseStarted: stop,
    },
    timedOut: () => expired.signal.aborted,
    dispose: stop,
  };
}

/**
 * One model answer of a run, over the run's model and its fallbacks (D41), with the
 * response format held (D42).
 *
 * - The next model is tried when one fails with 429, 5xx, a failed or broken connection, or
 *   no first byte within PROVIDER_FIRST_BYTE_TIMEOUT_MS, each after the SDK's own retries.
 *   A refusal (4xx), a cancel or a deadline ends the run as before. Once a stream has sent
 *   a fragment nothing switches: a later failure is the stream's.
 * - An answer that does not match the response format is repaired once, by the model that
 *   gave it, with the violations; a second mismatch fails with 502 provider_error listing
 *   them. A stream cannot take back what it sent, so a streamed mismatch fails at once.
 * - `attempts` lists every call; `route` is the model that answered.
 * - `cost` sums what every call cost as it ends (an answer, a repair, an agent's later turns,
 *   a call aborted before its usage came at its estimate); a workflow gives its steps one.
 */
export class ModelRun {
  readonly attempts: ModelAttempt[] = [];
  private readonly charge = (cost: CallCost) => this.cost.add(cost);
  private answering: ModelRoute;
  /** Where the next call starts: an agent's later turns go to the model that answered, not back to one that failed. */
  private start = 0;

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: readonly ModelRoute[],
    readonly cost: RunCost = new RunCost(),
  ) {
    if (routes.length === 0) throw new Error('ModelRun needs at least one model');
    this.answering = routes[0];
  }

  /** The model that answered (the first model until one has). */
  get route(): ModelRoute {
    return this.answering;
  }

  /** Whose credentials the calls used: the operator's (hosted) or the workspace's own. */
  get credentials(): CredentialSource {
    return credentialSourceOf(this.answering);
  }

  async complete(call: PromptCall): Promise<CompletionResult> {
    const format = call.params?.responseFormat;
    const first = await this.completeFrom(this.start, call, false);
    const violations = first.answer.toolCalls.length === 0 ? violationsOf(format, first.answer.response) : [];
    if (violations.length === 0) return this.result(first.answer);
    this.noteViolations(violations.length);
    const repair: PromptCall = {
      ...call,
      messages: [...call.messages, ...repairMessages(first.answer.response, violations)],
      ...(call.tools && call.tools.length > 0 && { toolChoice: 'none' }),
    };
    const second = await this.completeFrom(first.index, repair, true);
    const usage = addUsage(first.answer.usage, second.answer.usage);
    const left = violationsOf(format, second.answer.response);
    if (left.length > 0) {
      this.noteViolations(left.length);
      throw schemaMismatch(this.answering, left, this.attempts);
    }
    return this.result({ ...second.answer, usage, cost: addCallCost(first.answer.cost, second.answer.cost) });
  }

  /**
   * The answer's parts as they come. The fallbacks are tried until one sends its first part;
   * from then on its parts (and its failure, if it fails) are the stream's.
   */
  async *stream(call: PromptCall): AsyncGenerator<StreamPart> {
    const format = call.params?.responseFormat;
    for (let index = this.start; index < this.routes.length; index += 1) {
      const route = this.routes[index];
      const startedAt = performance.now();
      const guard = this.guardFor(index, call.abortSignal);
      const parts = stream(this.registry, route, { ...call, abortSignal: guard.signal }, this.attempt(index, false), this.charge)[
        Symbol.asyncIterator
      ]();
      let first: IteratorResult<StreamPart>;
      try {
        // The SDK sends the request on the first read: the watcher must be its context.
        first = guard.watcher ? await firstByteWatch.run(guard.watcher, () => parts.next()) : await parts.next();
      } catch (error) {
        this.failed(index, route, startedAt, error, call.abortSignal, guard);
        continue;
      } finally {
        guard.dispose();
      }
      this.answering = route;
      this.start = index;
      let response = '';
      let toolCalls = 0;
      try {
        for (let next = first; !next.done; next = await parts.next()) {
          const part = next.value;
          if (part.type === 'response') response += part.text;
          if (part.type === 'tool-call') toolCalls += 1;
          if (part.type === 'finish') {
            const violations = toolCalls === 0 ? violationsOf(format, response) : [];
            this.attempts.push({ model: route.modelId, error_code: null, duration_ms: since(startedAt) });
            if (violations.length > 0) {
              this.noteViolations(violations.length);
              throw schemaMismatch(route, violations, this.attempts);
            }
          }
          yield part;
        }
        return;
      } catch (error) {
        if (!this.attempts.some((attempt) => attempt.error_code === null && attempt.model === route.modelId)) {
          this.attempts.push({ model: route.modelId, error_code: attemptFailureOf(error).code, duration_ms: since(startedAt) });
        }
        throw error;
      } finally {
        await parts.return?.(undefined);
      }
    }
  }

  /** The next call's place in the run, for its span. */
  private attempt(fallbackIndex: number, repair: boolean): CallAttempt {
    return { number: this.attempts.length + 1, fallbackIndex, ...(repair && { repair }) };
  }

  private guardFor(index: number, callerSignal: AbortSignal | undefined): FirstByteGuard {
    const fallbackLeft = index < this.routes.length - 1;
    return firstByteGuard(fallbackLeft ? this.registry.settings.firstByteTimeoutMs : undefined, callerSignal);
  }

  /** The model from `start` on answers the call; a repair starts at the model that answered. */
  private async completeFrom(start: number, call: PromptCall, repair: boolean): Promise<{ answer: RouteCompletion; index: number }> {
    for (let index = start; index < this.routes.length; index += 1) {
      const route = this.routes[index];
      const startedAt = performance.now();
      const guard = this.guardFor(index, call.abortSignal);
      try {
        const request = () =>
          complete(this.registry, route, { ...call, abortSignal: guard.signal }, this.attempt(index, repair), this.charge);
        const answer = guard.watcher ? await firstByteWatch.run(guard.watcher, request) : await request();
        this.attempts.push({ model: route.modelId, error_code: null, duration_ms: since(startedAt), ...(repair && { repair: true }) });
        this.answering = route;
        this.start = index;
        return { answer, index };
      } catch (error) {
        this.failed(index, route, startedAt, error, call.abortSignal, guard, repair);
      } finally {
        guard.dispose();
      }
    }
    // failed() throws on the last model.
    throw new Error('unreachable: every model failed without an error');
  }

  /** Records a failed call; throws unless the next model may answer instead. */
  private failed(
    index: number,
    route: ModelRoute,
    startedAt: number,
    error: unknown,
    callerSignal: AbortSignal | undefined,
    guard: FirstByteGuard,
    repair = false,
  ): void {
    // A cancel, a client gone or the run's deadline: nothing to fall back for.
    if (callerSignal?.aborted) throw error;
    const failure: AttemptFailure = guard.timedOut() ? { code: 'timeout', switchable: true } : attemptFailureOf(error);
    this.attempts.push({
      model: route.modelId,
      error_code: failure.code,
      ...(failure.status !== undefined && { status: failure.status }),
      duration_ms: since(startedAt),
      ...(repair && { repair: true }),
    });
    if (failure.switchable && index < this.routes.length - 1) return;
    throw this.finalFailure(error);
  }

  /** The last model's failure, with every attempt in its details when there was more than one. */
  private finalFailure(error: unknown): unknown {
    if (this.attempts.length < 2 || !(error instanceof WaggleException) || error.code !== 'provider_error') return error;
    const wire = error.toWire();
    const details = typeof wire.details === 'object' && wire.details !== null ? wire.details : {};
    return WaggleException.fromWire({ ...wire, details: { ...details, attempts: this.attempts } }) ?? error;
  }

  /**
   * What a run's record keeps of its model calls: every attempt, when a fallback could have
   * answered or more than one call was made; nothing otherwise (the record's model says it all).
   */
  record(): { attempts?: ModelAttempt[] } {
    return this.routes.length > 1 || this.attempts.length > 1 ? { attempts: this.attempts } : {};
  }

  private noteViolations(count: number): void {
    const last = this.attempts[this.attempts.length - 1];
    if (last) last.violations = count;
  }

  private result(answer: RouteCompletion): CompletionResult {
    return { ...answer, model: this.answering.modelId, attempts: this.attempts };
  }
}

function since(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}
