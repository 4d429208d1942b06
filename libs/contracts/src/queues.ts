import type { AgentTriggerJob } from './agent.patterns';
import type { CallbackDeliveryJob } from './callback-dispatcher.patterns';
import type { PromptTriggerJob } from './invocation.patterns';

/**
 * BullMQ queue names. They are wire format: renaming one strands the jobs already in
 * Redis, so a rename is a migration.
 */
export const QueueNames = {
  /** Terminal results waiting to be delivered; only the callback-dispatcher consumes it. */
  callbacks: 'callbacks',
  /** Accepted prompt webhook triggers; invocation's workers consume it. */
  promptRuns: 'prompt-runs',
  /** Accepted agent webhook triggers; the agent service's workers consume it. */
  agentRuns: 'agent-runs',
} as const;

export type QueueName = (typeof QueueNames)[keyof typeof QueueNames];

/** What a job of each queue carries: producers and workers are typed from it. */
export interface QueueJobs {
  callbacks: CallbackDeliveryJob;
  'prompt-runs': PromptTriggerJob;
  'agent-runs': AgentTriggerJob;
}
