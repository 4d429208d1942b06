import { errorMessage, WaggleException, type ErrorCode, type NestedMessage } from '@waggle/errors';

/**
 * Why a run stopped. `fatal` failures (the step cap, the run's time-out, a lost lease) end the run
 * whatever the steps' `on_error` says; the others are a step's own failure, which its `on_error`
 * (and an enclosing loop's) may turn into a recorded error the run goes past.
 */
export class RunFailure extends Error {
  /** Why, as a message id rendered in the reader's language (null: only the English `message` is known). */
  readonly detail: NestedMessage | null;

  constructor(
    readonly code: ErrorCode,
    text: NestedMessage | { english: string },
    readonly stepId: string | null,
    readonly fatal = false,
    /** The failure's `details` (a provider_error's violations and model attempts). */
    readonly details?: unknown,
  ) {
    super('english' in text ? text.english : errorMessage(text, 'en'));
    this.name = 'RunFailure';
    this.detail = 'english' in text ? null : text;
  }

  static of(error: unknown, stepId: string): RunFailure {
    if (error instanceof RunFailure) return error;
    if (error instanceof WaggleException) return new RunFailure(error.code, failureText(error), stepId, false, error.details);
    return new RunFailure('internal_server_error', { detail: 'workflow_step_unexpected' }, stepId);
  }
}

/** What a run's signal is aborted with when the run is cancelled (decisions.md, run cancellation): it ends the run, no step continues past it. */
export function cancelledRunFailure(): RunFailure {
  return new RunFailure('run_cancelled', { detail: 'workflow_run_cancelled' }, null, true);
}

/** Whether the run's signal was aborted by a cancel (not its time-out or a lost lease). */
export function isRunCancel(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof RunFailure && signal.reason.code === 'run_cancelled';
}

/** A refusal's message id and parameters when it has one, its English text otherwise (a catalog message). */
export function failureText(error: WaggleException): NestedMessage | { english: string } {
  return error.detail === undefined
    ? { english: error.message }
    : { detail: error.detail, params: error.params as NestedMessage['params'] };
}
