import type { Logger } from '@nestjs/common';
import type { QueueJobs, QueueName } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { enqueue, type JobQueue } from '@waggle/platform';
import type { CallbackUrlPolicy } from '@waggle/webhooks';

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
      message: `Missing required fields: ${problems.map((problem) => problem.field).join(', ')}`,
      details: problems.map(({ field, why }) => ({ field, messages: [why] })),
    });
  }
  const refusal = policy.check(callbackUrl);
  if (refusal)
    throw new WaggleException('validation_error', { message: refusal, details: [{ field: 'async.callback_url', messages: [refusal] }] });
  return callbackUrl;
}

/** Queues an accepted run (idempotent by request id); a queue that cannot take it answers 503. */
export async function enqueueTrigger<Q extends QueueName>(
  queue: JobQueue<Q>,
  requestId: string,
  job: QueueJobs[Q],
  logger: Logger,
): Promise<void> {
  try {
    await enqueue(queue, requestId, job);
  } catch (error) {
    logger.error({ err: error }, 'a webhook trigger could not be queued');
    throw new WaggleException('upstream_request_failed', { status: 503, message: 'The run could not be accepted. Retry shortly.' });
  }
}
