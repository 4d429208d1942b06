import { Logger } from '@nestjs/common';
import { acceptedTriggerRecord, type AcceptedTriggerJob, type QueueJobs, type QueueName, type TriggeredRun } from '@waggle/contracts';
import { errorMessage, WaggleException } from '@waggle/errors';
import { enqueue, type JobQueue, type LedgerPublisher } from '@waggle/platform';
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
export abstract class TriggerIntakeController<Q extends QueueName> {
  protected readonly callbackUrls: CallbackUrlPolicy;
  private readonly logger: Logger;

  protected constructor(
    private readonly triggers: JobQueue<Q>,
    private readonly ledger: LedgerPublisher,
    env: GatewayEnv,
  ) {
    this.logger = new Logger(new.target.name);
    this.callbackUrls = CallbackUrlPolicy.fromEnv(env);
  }

  /**
   * Accepts a checked trigger: queues its run (idempotent by request id; a queue that cannot
   * take it answers 503), then records it `running` in the ledger, where it is from then on
   * even while its runner is down.
   */
  protected async accept(job: QueueJobs[Q] & AcceptedTriggerJob, run: TriggeredRun): Promise<AcceptedTrigger> {
    try {
      await enqueue(this.triggers, job.request_id, job);
    } catch (error) {
      this.logger.error({ err: error }, 'a webhook trigger could not be queued');
      throw new WaggleException('upstream_request_failed', { status: 503, detail: 'run_not_accepted' });
    }
    this.ledger.save(acceptedTriggerRecord(job, run));
    return { request_id: job.request_id, run_status: 'running' };
  }
}
