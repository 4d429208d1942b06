import type { AcceptedTriggerJob, QueueJobs, TriggeredRun } from '@waggle/contracts';
import { errorMessage, WaggleException } from '@waggle/errors';
import { type JobQueue } from '@waggle/platform';
import { acceptQueuedRun, type LedgerPublisher, type TriggerQueue } from '@waggle/runs';
import { CallbackUrlPolicy } from '@waggle/webhooks';
import type { GatewayEnv } from '../config/gateway.env';

/** A required field of a trigger body, with why it is required. */
export interface RequiredField {
  field: string;
  why: string;
}

export const CALLBACK_URL_REQUIRED: RequiredField = {
  field: 'async.callback_url',
  why: 'async.callback_url is required: delivery is always by callback',
};

/**
 * What every webhook trigger checks before accepting a run: every missing field named at
 * once (422 missing_required_field), then the callback URL against the callback policy
 * (422 validation_error). Answers the callback URL.
 */
export function checkTriggerBody(missing: RequiredField[], callbackUrl: string | undefined, policy: CallbackUrlPolicy): string {
  const problems = callbackUrl === undefined ? [...missing, CALLBACK_URL_REQUIRED] : missing;
  if (problems.length > 0 || callbackUrl === undefined) {
    throw new WaggleException('missing_required_field', {
      detail: 'missing_required_fields',
      params: { fields: problems.map((problem) => problem.field).join(', ') },
      details: problems.map(({ field, why }) => ({ field, messages: [why] })),
    });
  }
  return checkCallbackUrl(callbackUrl, policy);
}

/** `async.callback_url` against the callback policy (422 validation_error naming it); answers the URL. */
export function checkCallbackUrl(callbackUrl: string, policy: CallbackUrlPolicy): string {
  const refusal = policy.refusal(callbackUrl);
  if (refusal)
    throw new WaggleException('validation_error', {
      detail: 'url_refused',
      params: { reason: refusal },
      details: [{ field: 'async.callback_url', messages: [errorMessage(refusal, 'en')] }],
    });
  return callbackUrl;
}

/** A trigger's answer: the run is accepted, and its result goes to the callback. */
export interface AcceptedTrigger {
  request_id: string;
  run_status: 'running';
}

/**
 * A webhook trigger route's intake (prompt and agent triggers): the queue its runs go to,
 * the callback policy its bodies are checked against, and the acceptance of a checked trigger.
 */
export abstract class TriggerIntakeController<Q extends TriggerQueue> {
  protected readonly callbackUrls: CallbackUrlPolicy;

  protected constructor(
    private readonly triggers: JobQueue<Q>,
    private readonly ledger: LedgerPublisher,
    env: GatewayEnv,
  ) {
    this.callbackUrls = CallbackUrlPolicy.fromEnv(env);
  }

  /** Accepts a checked trigger (acceptQueuedRun): recorded `running`, as the spec answers a trigger. */
  protected async accept(job: QueueJobs[Q] & AcceptedTriggerJob, run: TriggeredRun): Promise<AcceptedTrigger> {
    await acceptQueuedRun(this.triggers, this.ledger, job, run, 'running');
    return { request_id: job.request_id, run_status: 'running' };
  }
}
