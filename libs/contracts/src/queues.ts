import type { AgentTriggerJob } from './agent.patterns';
import type { CallbackDeliveryJob } from './callback-dispatcher.patterns';
import type { ExperimentCellJob } from './experiments.patterns';
import type { PromptTriggerJob, WorkflowRunJob } from './invocation.patterns';
import type { KnowledgeBaseCleanupJob, KnowledgeBaseIngestJob } from './knowledge-base.patterns';

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
  /** One job per knowledge base item to parse, chunk, embed and index; the knowledge-base service consumes it. */
  knowledgeBaseIngest: 'knowledge-base-ingest',
  /** Contents of deleted knowledge bases to remove; the knowledge-base service consumes it. */
  knowledgeBaseCleanup: 'knowledge-base-cleanup',
  /** Accepted workflow runs (sync and async); invocation's workflow workers consume it. */
  workflowRuns: 'workflow-runs',
  /** One job per cell of an experiment run (a dataset row × a candidate); invocation's experiment workers consume it. */
  experimentCells: 'experiment-cells',
} as const;

export type QueueName = (typeof QueueNames)[keyof typeof QueueNames];

/** What a job of each queue carries: producers and workers are typed from it. */
export interface QueueJobs {
  callbacks: CallbackDeliveryJob;
  'prompt-runs': PromptTriggerJob;
  'agent-runs': AgentTriggerJob;
  'knowledge-base-ingest': KnowledgeBaseIngestJob;
  'knowledge-base-cleanup': KnowledgeBaseCleanupJob;
  'workflow-runs': WorkflowRunJob;
  'experiment-cells': ExperimentCellJob;
}
