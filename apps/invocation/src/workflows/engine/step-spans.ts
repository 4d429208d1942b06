import { failSpan, startSpan } from '@waggle/telemetry';
import type { Attributes } from '@opentelemetry/api';
import type { WorkflowStep } from '@waggle/workflows';
import type { StepRecordRow } from '../runs/workflow-runs.repository';
import { RunFailure } from './run-failure';

/** The step span's attribute holding the step record's final status (completed, failed). */
export const STEP_STATUS = 'waggle.workflow.step.status';

/**
 * A step execution's span attributes. The attempt is the one its record will count (a record
 * written again by a re-run of the run counts one more), so a resumed run's trace tells a
 * repeated step from a first one.
 */
export function stepAttributes(step: WorkflowStep, previous: StepRecordRow | undefined): Attributes {
  return {
    'waggle.workflow.step.id': step.id,
    'waggle.workflow.step.type': step.type,
    'waggle.workflow.step.attempt': (previous?.attempts ?? 0) + 1,
  };
}

/**
 * Runs a step's (or a loop iteration's) work in a span of its own, active while it runs so its
 * model calls, NATS requests and nested steps are its children. The work answers the failure it
 * recorded and went past (`on_error: continue`), or null; either way, or when it throws, the span
 * ends as the record did: a failure gives it ERROR status with the failure's catalog code, which
 * a step that is continued past would otherwise hide from the trace. With `statusAttribute`, the
 * record's final status is set on it too.
 */
export async function inRecordSpan(
  name: string,
  attributes: Attributes,
  work: () => Promise<RunFailure | null>,
  statusAttribute?: string,
): Promise<void> {
  const { span, run } = startSpan(name, attributes);
  let failure: unknown;
  try {
    failure = await run(work);
  } catch (error) {
    end(error);
    throw error;
  }
  end(failure);

  function end(outcome: unknown): void {
    if (outcome === null) {
      if (statusAttribute) span.setAttribute(statusAttribute, 'completed');
      span.end();
    } else if (outcome instanceof RunFailure) {
      if (statusAttribute) span.setAttribute(statusAttribute, 'failed');
      failSpan(span, outcome, outcome.code);
    } else {
      // Not a step's failure (a step record write that failed): the record did not end.
      failSpan(span, outcome);
    }
  }
}
