import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import type { KnowledgeBaseEnv } from '../config/knowledge-base.env';

/** The knowledge base queues, an ingestion retried as the env says (KB_INGEST_ATTEMPTS, KB_INGEST_BACKOFF_MS). */
export const KNOWLEDGE_BASE_QUEUES = registerQueues([QueueNames.knowledgeBaseIngest, QueueNames.knowledgeBaseCleanup], {
  [QueueNames.knowledgeBaseIngest]: (env: KnowledgeBaseEnv) => ({
    attempts: env.KB_INGEST_ATTEMPTS,
    backoff: { type: 'exponential', delay: env.KB_INGEST_BACKOFF_MS },
  }),
});
